#ifndef UBIQ_CDNSSD_SHIM_H
#define UBIQ_CDNSSD_SHIM_H

// avahi's Bonjour compatibility library (Debian: libavahi-compat-libdnssd-dev), included by
// its folder rather than through pkg-config: `pkg-config avahi-compat-libdns_sd` adds
// -D_REENTRANT, which SwiftPM refuses with a warning on every build.
#include <avahi-compat-libdns_sd/dns_sd.h>
#include <dlfcn.h>
#include <stdlib.h>

// The header declares these as members of anonymous enums, which Swift imports as Int;
// typed copies keep the Swift side free of casts.
static inline DNSServiceErrorType cdnssd_err_no_error(void) { return kDNSServiceErr_NoError; }
static inline DNSServiceFlags cdnssd_flag_add(void) { return kDNSServiceFlagsAdd; }
static inline DNSServiceFlags cdnssd_flag_more_coming(void) { return kDNSServiceFlagsMoreComing; }
static inline uint16_t cdnssd_type_a(void) { return kDNSServiceType_A; }
static inline uint16_t cdnssd_type_aaaa(void) { return kDNSServiceType_AAAA; }
static inline uint16_t cdnssd_class_in(void) { return kDNSServiceClass_IN; }

// avahi 0.8's dns_sd allocates each DNSServiceRef without zeroing it and leaves the reply
// callbacks it does not use uninitialised; when avahi-daemon goes away, a resolve or query ref
// then calls one of those garbage pointers and the process crashes (fixed upstream in avahi
// PR #569, "libdns_sd: Use allocator with memory set to zero", not in Debian 12). Installing
// a zeroing allocator in libavahi-common, which the library already loads, applies the same
// fix from outside. Found with dlsym so that nothing more has to be linked; NULL is glibc's
// RTLD_DEFAULT. Returns 0 when the symbol is not there.
typedef struct {
    void *(*malloc)(size_t size);
    void (*free)(void *p);
    void *(*realloc)(void *p, size_t size);
    void *(*calloc)(size_t nmemb, size_t size);
} cdnssd_avahi_allocator;

static void *cdnssd_zeroed_malloc(size_t size) { return calloc(1, size); }

static const cdnssd_avahi_allocator cdnssd_zeroing_allocator = { cdnssd_zeroed_malloc, free, realloc, calloc };

static inline int cdnssd_zero_avahi_allocations(void) {
    void (*set_allocator)(const cdnssd_avahi_allocator *) =
        (void (*)(const cdnssd_avahi_allocator *))dlsym(NULL, "avahi_set_allocator");
    if (!set_allocator) return 0;
    set_allocator(&cdnssd_zeroing_allocator);
    return 1;
}

#endif
