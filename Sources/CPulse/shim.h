#ifndef RECORDKIT_CPULSE_SHIM_H
#define RECORDKIT_CPULSE_SHIM_H
#include <pulse/pulseaudio.h>
#include <pulse/error.h>
#include <pulse/simple.h>
static inline pa_sample_format_t shim_pa_sample_float32ne(void) { return PA_SAMPLE_FLOAT32NE; }
#endif
