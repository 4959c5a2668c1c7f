#ifndef PASSTAP_CNFC_SHIM_H
#define PASSTAP_CNFC_SHIM_H
/* libnfc's own header, nothing re-declared; imported only by the NFCBackend target. */
#include <nfc/nfc.h>
#endif
