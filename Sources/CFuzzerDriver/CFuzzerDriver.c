// Only the declaration in include/CFuzzerDriver.h; libFuzzer provides the definition.
#include "CFuzzerDriver.h"
