/* manifest.h — executor manifest: JSON (cJSON) -> validated, expanded struct manifest.
 *
 * Promise: manifest_parse() either returns a complete manifest in which every hint is expanded
 * (absolute, `~` replaced by the invoking user's home, relative hints joined onto the workspace,
 * lexically normalised) and every host parsed, with the autonomy transform already applied — or it
 * returns -1 with *every* problem listed in `errs`, each naming line/column (syntax) or its JSON
 * path (semantics: "capabilities[2].hosts[0]: ..."). Nothing downstream re-reads the JSON.
 * Input bounds: at most MF_MAX_BYTES bytes and MF_MAX_DEPTH nesting, checked before cJSON parses.
 */
#ifndef SBX_MANIFEST_H
#define SBX_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MF_MAX_BYTES (1u << 20) /* 1 MiB */
#define MF_MAX_DEPTH 32
#define MF_MAX_ERRORS 64

enum mf_autonomy { MF_AUTONOMY_READONLY = 0, MF_AUTONOMY_SUPERVISED = 1, MF_AUTONOMY_FULL = 2 };

struct mf_hint {
	char *glob;    /* as written in the manifest */
	char *abs;     /* expanded + normalised glob (absolute) */
	char *dir;     /* abs truncated before its first glob component (directory-level layers) */
	char *jpath;   /* "capabilities[1].hints[0]" / "deny[2]" */
};

enum mf_host_kind { MF_HOST_NAME = 0, MF_HOST_V4 = 1, MF_HOST_V6 = 2 };
struct mf_host {
	enum mf_host_kind kind;
	char *text;        /* as written */
	char *name;        /* lower-case, no trailing dot (MF_HOST_NAME) */
	uint8_t addr[16];  /* network order (V4: first 4 bytes) */
	uint8_t prefix;    /* 32/128 when no /len given */
	uint16_t port;     /* 0 = any port */
	char *jpath;       /* "capabilities[3].hosts[0]" */
	char *mode;        /* the network capability's mode ("http", "tcp", "udp", "dns", ...) */
	char **methods; size_t nmethods; /* HTTP rules (object form of a host): upper-case methods */
	char **paths;   size_t npaths;   /* HTTP rules: path prefixes, each starting with '/' */
};

struct mf_env_set { char *name; char *value; };

/* -1 = not set in the manifest (no limit from the manifest). wall_s and nofile are never -1 after
 * manifest_parse: when the manifest does not set them they hold MF_DEFAULT_WALL_S / MF_DEFAULT_NOFILE
 * (a consumer that still maps -1 to these defaults is harmless). The core limit is always 0. */
struct mf_limits {
	long wall_s, cpu_s, memory_mb, pids, fsize_mb, nofile;
	long audit_mb;             /* audit stream budget per source class (audit.h); 0 = unbounded */
};
#define MF_DEFAULT_WALL_S 300
#define MF_DEFAULT_NOFILE 1024

struct manifest {
	int version;               /* always 1 */
	char *name;
	enum mf_autonomy autonomy;
	char *code_path;           /* absolute, or NULL */
	char *code_dir;            /* directory of code_path, or NULL */
	bool code_exec;            /* capability code:exec */

	struct mf_hint *reads;   size_t nreads;    /* fs:read hints (plus fs:write under readonly) */
	struct mf_hint *writes;  size_t nwrites;   /* fs:write hints (write implies read) */
	struct mf_hint *denies;  size_t ndenies;   /* manifest `deny` */

	bool net_granted;          /* some network capability survives autonomy */
	bool net_any;              /* unrestricted: autonomy full, or a network cap without hosts */
	struct mf_host *hosts;   size_t nhosts;
	char **net_modes;        size_t nnet_modes; /* "http", "tcp", ... as written */

	char **ignored_caps;     size_t nignored;  /* "mail:send" ...: accepted, no effect */

	char **env_pass;         size_t nenv_pass; /* globs */
	struct mf_env_set *env_set; size_t nenv_set;

	struct mf_limits limits;

	char *source;              /* manifest path, or "(built-in default)" */
	char sha256_hex[65];       /* of the manifest bytes (of the built-in text for the default) */
	char *workspace;           /* absolute */
	char *home;                /* invoking user's home */
	bool is_default;
	bool shadow;               /* "workspace": {"mode": "shadow"} (docs/shadow.md) */
};

struct mf_ctx {
	const char *home;          /* $HOME of the invoking user (getpwuid fallback) */
	const char *workspace;     /* absolute, normalised */
	uid_t uid;
	/* storage used by mf_ctx_init (home/workspace point here); unused when filled by hand */
	char home_buf[4096];
	char workspace_buf[4096];
};

struct mf_errors {
	size_t n;
	char *msg[MF_MAX_ERRORS];  /* "line 3, column 7: ..." / "capabilities[2].hosts[0]: ..." */
	size_t nwarn;
	char *warn[MF_MAX_ERRORS]; /* non-fatal: "capabilities[3]: network:http without hosts grants any host" */
	size_t ndropped;           /* problems found but not stored (more than MF_MAX_ERRORS, or no memory) */
};
/* The functions below append to `errs`: zero-initialise it (struct mf_errors e = {0}) before the
 * first call and mf_errors_free() it after use. A failed parse always has n >= 1 or ndropped >= 1. */

/* The built-in default manifest (JSON text, see SPEC "Built-in default manifest"). */
extern const char manifest_default_json[];

int manifest_parse(const char *buf, size_t len, const char *source, const struct mf_ctx *ctx,
		   struct manifest **out, struct mf_errors *errs);
/* Reads the file (refusing > MF_MAX_BYTES without reading it all), then manifest_parse. */
int manifest_load(const char *path, const struct mf_ctx *ctx, struct manifest **out,
		  struct mf_errors *errs);
int manifest_load_default(const struct mf_ctx *ctx, struct manifest **out, struct mf_errors *errs);
/* Fills ctx from the environment: HOME (or the passwd entry), workspace (given or cwd), uid. Both
 * paths are made absolute and resolved (realpath) when they exist; the workspace must be an existing
 * directory other than "/" (which would make the whole file system writable). -1 with err set. */
int mf_ctx_init(struct mf_ctx *ctx, const char *workspace, char *err, size_t errlen);

/* A directory that is never a workspace (absolute, resolved): "/" (the whole file system would be
 * writable), and /tmp, /var/tmp, /dev/shm themselves (every run gets a private one, which would
 * hide or share it). Returns a short reason, or NULL. `sbxsup run` runs in a temporary workspace
 * instead (run_args_workspace); mf_ctx_init refuses them. */
const char *mf_workspace_never(const char *abs);
void manifest_free(struct manifest *m);
void mf_errors_free(struct mf_errors *e);

/* Expand one hint as the manifest would (exposed for tests and explain --path): `~`/`~/x` -> home,
 * relative -> workspace, lexically normalised. Returns a malloc'd absolute path, or NULL with errno
 * (EINVAL: empty or `~user`; ENAMETOOLONG: longer than 4096 bytes). */
char *mf_expand_path(const char *hint, const struct mf_ctx *ctx);
/* The directory-level form of an expanded glob: truncated before its first component holding '*'
 * or '?' ("/h/u/notes/" "**" -> "/h/u/notes"; "/" + "**" -> "/"). malloc'd, NULL on ENOMEM. */
char *mf_hint_dir(const char *abs);

/* Parse one host as the manifest would ("name[:port]", "IPv4[/len][:port]", "[IPv6][/len][:port]").
 * Fills *out (text, name and jpath malloc'd; jpath NULL) or returns -1 with a reason in why. */
int mf_parse_host(const char *text, struct mf_host *out, char *why, size_t whylen);
void mf_host_clear(struct mf_host *h);

#endif
