#ifndef UBIQ_CDNSSD_SHIM_H
#define UBIQ_CDNSSD_SHIM_H

// avahi's Bonjour compatibility library (Debian: libavahi-compat-libdnssd-dev), included by
// its folder rather than through pkg-config: `pkg-config avahi-compat-libdns_sd` adds
// -D_REENTRANT, which SwiftPM refuses with a warning on every build.
#include <avahi-compat-libdns_sd/dns_sd.h>

// The header declares these as members of anonymous enums, which Swift imports as Int;
// typed copies keep the Swift side free of casts.
static inline DNSServiceErrorType cdnssd_err_no_error(void) { return kDNSServiceErr_NoError; }
static inline DNSServiceFlags cdnssd_flag_add(void) { return kDNSServiceFlagsAdd; }
static inline DNSServiceFlags cdnssd_flag_more_coming(void) { return kDNSServiceFlagsMoreComing; }
static inline uint16_t cdnssd_type_a(void) { return kDNSServiceType_A; }
static inline uint16_t cdnssd_type_aaaa(void) { return kDNSServiceType_AAAA; }
static inline uint16_t cdnssd_class_in(void) { return kDNSServiceClass_IN; }

#endif
