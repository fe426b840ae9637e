//! The texts `--help` shows after the flags of each command: examples, the exit codes the
//! command uses, and where the rest is documented. The exit-code lines follow the one policy of
//! the three programs (README.md "Exit codes"); [`super::CliError::exit`] chooses them. The
//! texts of `completions` and `man` are `modoai-cli`'s.

use modoai_cli::Exit;

/// After `modoai --help`: examples, the policy as modoai uses it, the docs.
pub(crate) fn modoai() -> String {
    let codes = Exit::help(&[
        (
            Exit::Done,
            "done: served until shut down, plugins healthy, secret hashed",
        ),
        (
            Exit::Failed,
            "the command ran but failed (e.g. the address is in use); see the message",
        ),
        (
            Exit::Usage,
            "bad usage, arguments or configuration: nothing was done",
        ),
        (
            Exit::Problems,
            "done, with problems it reports (plugins check: some plugins missing or broken)",
        ),
    ]);
    format!("{EXAMPLES}\n\n{codes}\n\n{DOCUMENTATION}")
}

/// The examples of `modoai --help`.
const EXAMPLES: &str = "\
Examples:
  modoai serve --root /var/www/html --base-url https://www.example.org/
  modoai serve --config /etc/modoai/modoai.toml
  modoai records --root /var/www/html --plugins /etc/modoai/plugins.toml
  modoai plugins check --plugins /etc/modoai/plugins.toml
  printf '%s\\n' \"$PW\" | modoai hash-secret
  modoai completions bash > ~/.local/share/bash-completion/completions/modoai
  modoai man | man -l -";

/// Where `modoai --help` sends its reader for the rest.
const DOCUMENTATION: &str =
    "Documentation: docs/webmasters.md (serving, configuration, deployment), docs/plugins.md.";

/// After `modoai serve --help`.
pub(crate) const SERVE: &str = "\
Settings come from the flags, else from the --config file, else the defaults shown. [access]
and [flow] of the file are reloaded on SIGHUP and when the file changes; the rest needs a
restart. Stop with SIGTERM or SIGINT (in-flight responses get grace-secs, default 10).

Examples:
  modoai serve --root examples/site --listen 127.0.0.1:8080
  modoai serve --root /var/www/html --listen 127.0.0.1:8081 \\
      --base-url https://www.example.org/ --plugins /etc/modoai/plugins.toml
  modoai serve --config /etc/modoai/modoai.toml

Exit codes (the policy: modoai --help):
  0  stopped by SIGTERM or SIGINT
  1  the listen address is in use or cannot be bound
  2  a bad flag, configuration or plugins file: nothing was started";

/// After `modoai records --help`.
pub(crate) const RECORDS: &str = "\
Prints one line per path of the root, sorted: `record TYPE PATH` (with --plugins, the tools
that analyse it for oai_crate) or `skip REASON PATH (why)`, then a count on standard error.
Reasons: hidden (a dot-name), not-regular, link-outside (a symlink that leaves the root),
own (the server's configuration, plugins file, plugin cache or access log), unreadable.
Hidden and own folders are one line each.

Examples:
  modoai records --root /var/www/html
  modoai records --config /etc/modoai/modoai.toml --json | jq -r 'select(.record) | .path'
  modoai records --root examples/site --plugins plugins.toml | grep -v '^record'

Exit codes (the policy: modoai --help):
  0  listed
  1  standard output could not be written
  2  a bad flag, configuration or plugins file, or the root is not a folder";

/// After `modoai plugins --help`.
pub(crate) const PLUGINS: &str = "\
Examples:
  modoai plugins check --plugins /etc/modoai/plugins.toml
  modoai plugins explain photo.jpg --plugins /etc/modoai/plugins.toml

Exit codes: see each command's --help, and the policy in modoai --help.";

/// After `modoai plugins check --help`.
pub(crate) const PLUGINS_CHECK: &str = "\
Examples:
  modoai plugins check --plugins /etc/modoai/plugins.toml
  modoai plugins check --json | jq -r '.plugins[] | select(.status != \"ok\") | .message'

Exit codes (the policy: modoai --help):
  0  every plugin is healthy
  2  the plugins file is bad (its line and key are named): nothing was checked
  3  some plugins are missing or broken (the report says which, and what to do)";

/// After `modoai plugins explain --help`.
pub(crate) const PLUGINS_EXPLAIN: &str = "\
Examples:
  modoai plugins explain examples/site/images/sunset.jpg --plugins plugins.toml

Exit codes (the policy: modoai --help):
  0  explained
  2  the plugins file is bad, or FILE is no regular file";

/// After `modoai hash-secret --help`.
pub(crate) const HASH_SECRET: &str = "\
Examples:
  printf '%s\\n' \"$PW\" | modoai hash-secret
  openssl rand -base64 32 | tee key.txt | modoai hash-secret --api-key

Exit codes (the policy: modoai --help):
  0  the hash was printed
  1  standard input could not be read
  2  an empty password, or an API key shorter than 32 characters";
