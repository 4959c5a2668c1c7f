#ifndef PASSTAP_CPCSCLITE_SHIM_H
#define PASSTAP_CPCSCLITE_SHIM_H
/* pcsc-lite's own headers, nothing re-declared: their constants and structs are the truth. */
#include <winscard.h>
#include <reader.h>
#endif
