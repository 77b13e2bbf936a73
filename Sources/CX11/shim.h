#ifndef RECORDKIT_CX11_SHIM_H
#define RECORDKIT_CX11_SHIM_H
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xatom.h>
#include <X11/extensions/XShm.h>
#include <X11/extensions/Xfixes.h>
#include <X11/extensions/Xdamage.h>
#include <X11/extensions/scrnsaver.h>
#include <X11/extensions/Xrandr.h>
#include <sys/ipc.h>
#include <sys/shm.h>

/* XDestroyImage is a macro that calls through XImage.f, which Swift cannot import. */
static inline int shim_XDestroyImage(XImage *image) { return XDestroyImage(image); }
static inline unsigned long shim_AllPlanes(void) { return AllPlanes; }
#endif
