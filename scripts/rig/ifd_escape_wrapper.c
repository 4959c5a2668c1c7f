/*
 * A wrapper IFD handler for the test rig: pcscd loads it (reader.conf LIBPATH) in place of
 * vsmartcard-vpcd's handler, which it dlopen()s and forwards every call to but IFDHControl,
 * which vpcd does not implement. Its IFDHControl answers as an ACS ACR1252U behind a CCID driver
 * would (docs/feedback.md): CM_IOCTL_GET_FEATURE_REQUEST lists FEATURE_CCID_ESC_COMMAND (or not),
 * and the escape commands E0 00 00 21/28/29 get the reader's E1 00 00 00 answers. This drives
 * pcscd's real SCardControl path, on a direct connection too, with no reader on the machine.
 *
 * Environment, read when pcscd loads the reader:
 *   PASSTAP_IFD_REAL       the handler to wrap (default /usr/lib/pcsc/drivers/serial/libifdvpcd.so)
 *   PASSTAP_IFD_ESCAPE     libccid: escapes at SCARD_CTL_CODE(1) (libccid with ifdDriverOptions
 *                          0x0001); acsccid: at SCARD_CTL_CODE(3500); hidden: no escape feature
 *                          listed and every escape refused (libccid without the option)
 *   PASSTAP_IFD_LOG        a file each IFDHControl call is appended to, one line:
 *                          "<control code in hex> <command in hex>"
 *
 * Build: cc -shared -fPIC $(pkg-config --cflags libpcsclite) -o libifdescape.so ifd_escape_wrapper.c -ldl
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ifdhandler.h> /* cc $(pkg-config --cflags libpcsclite) */
#include <reader.h>

#define DEFAULT_REAL "/usr/lib/pcsc/drivers/serial/libifdvpcd.so"

static void *real;
/* The ACR1252U's default behaviour byte (E0 00 00 21): its factory value, card-detection beep on. */
static unsigned char defaults = 0xFB;

static void *function(const char *name)
{
    if (real == NULL) {
        const char *path = getenv("PASSTAP_IFD_REAL");
        real = dlopen(path ? path : DEFAULT_REAL, RTLD_NOW | RTLD_LOCAL);
        if (real == NULL) {
            fprintf(stderr, "ifd_escape_wrapper: %s\n", dlerror());
            return NULL;
        }
    }
    return dlsym(real, name);
}

#define FORWARD(type, name, params, args)                          \
    RESPONSECODE name params                                       \
    {                                                              \
        RESPONSECODE(*call) params = (type)function(#name);        \
        return call ? call args : IFD_COMMUNICATION_ERROR;         \
    }

typedef RESPONSECODE (*by_name_t)(DWORD, LPSTR);
typedef RESPONSECODE (*create_t)(DWORD, DWORD);
typedef RESPONSECODE (*close_t)(DWORD);
typedef RESPONSECODE (*get_t)(DWORD, DWORD, PDWORD, PUCHAR);
typedef RESPONSECODE (*set_t)(DWORD, DWORD, DWORD, PUCHAR);
typedef RESPONSECODE (*protocol_t)(DWORD, DWORD, UCHAR, UCHAR, UCHAR, UCHAR);
typedef RESPONSECODE (*power_t)(DWORD, DWORD, PUCHAR, PDWORD);
typedef RESPONSECODE (*transmit_t)(DWORD, SCARD_IO_HEADER, PUCHAR, DWORD, PUCHAR, PDWORD, PSCARD_IO_HEADER);
typedef RESPONSECODE (*presence_t)(DWORD);

FORWARD(by_name_t, IFDHCreateChannelByName, (DWORD lun, LPSTR name), (lun, name))
FORWARD(create_t, IFDHCreateChannel, (DWORD lun, DWORD channel), (lun, channel))
FORWARD(close_t, IFDHCloseChannel, (DWORD lun), (lun))
FORWARD(get_t, IFDHGetCapabilities, (DWORD lun, DWORD tag, PDWORD length, PUCHAR value), (lun, tag, length, value))
FORWARD(set_t, IFDHSetCapabilities, (DWORD lun, DWORD tag, DWORD length, PUCHAR value), (lun, tag, length, value))
FORWARD(protocol_t, IFDHSetProtocolParameters, (DWORD lun, DWORD protocol, UCHAR flags, UCHAR pts1, UCHAR pts2, UCHAR pts3),
        (lun, protocol, flags, pts1, pts2, pts3))
FORWARD(power_t, IFDHPowerICC, (DWORD lun, DWORD action, PUCHAR atr, PDWORD length), (lun, action, atr, length))
FORWARD(transmit_t, IFDHTransmitToICC,
        (DWORD lun, SCARD_IO_HEADER send, PUCHAR tx, DWORD tx_length, PUCHAR rx, PDWORD rx_length, PSCARD_IO_HEADER receive),
        (lun, send, tx, tx_length, rx, rx_length, receive))
FORWARD(presence_t, IFDHICCPresence, (DWORD lun), (lun))

/* The control code escapes go to in this mode; 0 when escapes are hidden. */
static DWORD escape_code(void)
{
    const char *mode = getenv("PASSTAP_IFD_ESCAPE");
    if (mode != NULL && strcmp(mode, "hidden") == 0) return 0;
    if (mode != NULL && strcmp(mode, "acsccid") == 0) return SCARD_CTL_CODE(3500);
    return SCARD_CTL_CODE(1);
}

static void record(DWORD code, const unsigned char *command, DWORD length)
{
    const char *path = getenv("PASSTAP_IFD_LOG");
    if (path == NULL) return;
    FILE *log = fopen(path, "a");
    if (log == NULL) return;
    fprintf(log, "%08lX ", (unsigned long)code);
    for (DWORD i = 0; i < length; i++) fprintf(log, "%02X", command[i]);
    fputc('\n', log);
    fclose(log);
}

/* Copies `answer` into rx when it fits. */
static RESPONSECODE reply(const unsigned char *answer, DWORD length, PUCHAR rx, DWORD rx_length, LPDWORD returned)
{
    if (length > rx_length) return IFD_ERROR_INSUFFICIENT_BUFFER;
    memcpy(rx, answer, length);
    *returned = length;
    return IFD_SUCCESS;
}

RESPONSECODE IFDHControl(DWORD lun, DWORD code, PUCHAR tx, DWORD tx_length, PUCHAR rx, DWORD rx_length, LPDWORD returned)
{
    (void)lun;
    *returned = 0;
    record(code, tx, tx_length);
    DWORD escape = escape_code();
    if (code == CM_IOCTL_GET_FEATURE_REQUEST) {
        if (escape == 0) return IFD_SUCCESS; /* no feature at all */
        unsigned char tlv[6] = {FEATURE_CCID_ESC_COMMAND, 4, escape >> 24, escape >> 16, escape >> 8, escape};
        return reply(tlv, sizeof tlv, rx, rx_length, returned);
    }
    if (escape == 0 || code != escape) return IFD_ERROR_NOT_SUPPORTED;
    /* ACR1252U escapes: E0 00 00 <command> <length> [data]; answer E1 00 00 00 <length> [data]. */
    if (tx_length < 5 || tx[0] != 0xE0 || tx[1] != 0 || tx[2] != 0) return IFD_COMMUNICATION_ERROR;
    switch (tx[3]) {
    case 0x21: /* default behaviour: read (length 0) or write (length 1) */
        if (tx[4] == 1 && tx_length == 6) defaults = tx[5];
        {
            unsigned char answer[6] = {0xE1, 0, 0, 0, 1, defaults};
            return reply(answer, sizeof answer, rx, rx_length, returned);
        }
    case 0x28: /* buzzer */
    case 0x29: /* LED */
        if (tx[4] != 1 || tx_length != 6) return IFD_COMMUNICATION_ERROR;
        {
            unsigned char answer[6] = {0xE1, 0, 0, 0, 1, tx[5]};
            return reply(answer, sizeof answer, rx, rx_length, returned);
        }
    default:
        return IFD_COMMUNICATION_ERROR;
    }
}
