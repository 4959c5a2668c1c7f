/*
 * LD_PRELOAD shim for tests: syslog(3) writes to stderr, one line with the journal's "<priority>"
 * prefix, instead of to /dev/log. Under systemd/passtapd.service both end up in the unit's
 * journal; here both end up in passtapd's log file, so a test sees what a library of passtapd
 * (libdispatch, say) sends to syslog, at its level. Build it with refused_calls_shim.c to see
 * passtapd as the unit runs it (Tests/IntegrationTests/Support/ServiceUnit.swift).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

void vsyslog(int priority, const char *format, va_list arguments)
{
    char line[2048];
    int prefix = snprintf(line, sizeof line, "<%d>", LOG_PRI(priority));
    vsnprintf(line + prefix, sizeof line - (size_t)prefix - 1, format, arguments);
    size_t length = strlen(line);
    while (length > (size_t)prefix && line[length - 1] == '\n') {
        length--;
    }
    line[length++] = '\n';
    (void)write(STDERR_FILENO, line, length);
}

void syslog(int priority, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsyslog(priority, format, arguments);
    va_end(arguments);
}

/* The names glibc's headers call with _FORTIFY_SOURCE. */
void __vsyslog_chk(int priority, int flag, const char *format, va_list arguments)
{
    (void)flag;
    vsyslog(priority, format, arguments);
}

void __syslog_chk(int priority, int flag, const char *format, ...)
{
    (void)flag;
    va_list arguments;
    va_start(arguments, format);
    vsyslog(priority, format, arguments);
    va_end(arguments);
}
