/* Daemon logging: leveled lines on stderr, text ("<time> <LEVEL> <target>: msg") or JSON (one object per
 * line), plus cuzk's TIMELINE lines, which are always printed (tools parse them). */
#ifndef CZ_ENGINE_LOG_H
#define CZ_ENGINE_LOG_H

#include <stdint.h>

enum { CZ_LOG_ERROR = 0, CZ_LOG_WARN, CZ_LOG_INFO, CZ_LOG_DEBUG, CZ_LOG_TRACE };

/* level: error|warn|info|debug|trace|off, or an env_logger filter as cuzk takes in logging.level and RUST_LOG
 * ("info,cuzk_core=debug": comma-separated, target=level items): the bare level sets the level; without one, the
 * most verbose level given a cuzk* target does (the daemon's lines are all cuzk's); other targets' items are
 * accepted and ignored. format: text|json. CZ_EINVAL on an unknown level name or an empty filter. */
int cz_log_set_level(const char *level);
int cz_log_set_format(const char *format);
int cz_log_enabled(int level);
void cz_log(int level, const char *target, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* TIMELINE,<ms since cz_log_epoch_reset>,<event>,<job_id>,<detail> */
void cz_timeline(const char *event, const char *job_id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void cz_log_epoch_reset(void);
uint64_t cz_now_ms(void); /* monotonic */

#endif
