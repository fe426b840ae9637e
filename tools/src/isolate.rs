//! Tool processes run at a lower priority and under resource limits.
//!
//! The server forbids `unsafe` code, so it cannot change a child's priority or limits between
//! `fork` and `exec` (`pre_exec`). Instead each tool is started through three small programs that
//! every Debian has, each of which adjusts itself and then `exec`s the next, so the tool keeps
//! their pid and process group (and so is still killed with its group):
//!
//! ```text
//! chrt --idle 0 nice -n 10 ionice -c 2 -n 7 prlimit --cpu=300:305 --data=2147483648 -- TOOL ARGS…
//! ```
//!
//! - `chrt` (util-linux): the `SCHED_IDLE` policy, under which a tool runs only on a core that
//!   nothing else wants: the server's own threads (plain `SCHED_OTHER`) always win, however many
//!   tools run, where a niced tool still takes a share of a busy core (nice 10 is about 10 %
//!   against nice 0, each);
//! - `nice` (coreutils): CPU scheduling priority, for `cpu-class = "normal"`;
//! - `ionice` (util-linux): I/O scheduling class;
//! - `prlimit` (util-linux): `RLIMIT_CPU` (soft limit: SIGXCPU; the hard limit 5 s later: SIGKILL)
//!   and `RLIMIT_DATA`, which bounds the memory a process can actually write to. `RLIMIT_AS` would
//!   bound reserved address space instead, and the JVM that runs JHOVE reserves a gigabyte of
//!   class space it never uses, so it would not even start under a 2 GiB `RLIMIT_AS`.

use std::ffi::OsString;
use std::path::PathBuf;

use super::config::{PluginsError, Settings, Source};
use super::program::find_program;

/// Defaults of `[settings]`.
const DEFAULT_NICE: u64 = 10;
const DEFAULT_CPU_SECS: u64 = 300;
const DEFAULT_MEMORY_MB: u64 = 2048;
/// Seconds between the CPU soft limit (SIGXCPU) and the hard limit (SIGKILL).
const CPU_HARD_MARGIN: u64 = 5;

/// The CPU scheduling class of tool processes (`cpu-class`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CpuClass {
    /// `SCHED_OTHER`, weighted by `nice`.
    Normal,
    /// `SCHED_IDLE`: only CPU time no one else wants.
    Idle,
}

/// The I/O scheduling class of tool processes (`io-class`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IoClass {
    /// Unchanged.
    None,
    /// Best effort at the lowest level (7): tools read when visitors' reads are served.
    BestEffort,
    /// Only when no one else uses the disk (may wait indefinitely on a busy disk).
    Idle,
}

/// How tool processes are started: priority and limits, and the programs that apply them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Isolation {
    /// The argv put before every tool's argv; empty when nothing is changed.
    prefix: Vec<OsString>,
    /// How many of `prefix`'s arguments set the CPU class (`chrt --idle 0`): left out for the
    /// version commands at start-up, which would otherwise wait on a busy machine.
    cpu_args: usize,
    /// `RLIMIT_CPU` soft limit, seconds.
    pub(crate) cpu_secs: Option<u64>,
    /// `RLIMIT_DATA`, MiB.
    pub(crate) memory_mb: Option<u64>,
}

impl Isolation {
    /// The isolation `[settings]` asks for, with its programs found on `PATH`.
    pub(crate) fn from_settings(src: &Source<'_>, s: &Settings) -> Result<Self, PluginsError> {
        let nice = match &s.nice {
            Some(n) if !(0..=19).contains(n.get_ref()) => {
                return Err(src.invalid(n.span(), "nice", "must be between 0 and 19"))
            }
            Some(n) => *n.get_ref() as u64,
            None => DEFAULT_NICE,
        };
        let cpu_class = match s
            .cpu_class
            .as_ref()
            .map(|c| (c.get_ref().as_str(), c.span()))
        {
            None | Some(("idle", _)) => CpuClass::Idle,
            Some(("normal", _)) => CpuClass::Normal,
            Some((_, span)) => {
                return Err(src.invalid(span, "cpu-class", "must be \"idle\" or \"normal\""))
            }
        };
        let io_class = match s
            .io_class
            .as_ref()
            .map(|c| (c.get_ref().as_str(), c.span()))
        {
            None | Some(("best-effort", _)) => IoClass::BestEffort,
            Some(("idle", _)) => IoClass::Idle,
            Some(("none", _)) => IoClass::None,
            Some((_, span)) => {
                return Err(src.invalid(
                    span,
                    "io-class",
                    "must be \"best-effort\", \"idle\" or \"none\"",
                ))
            }
        };
        let limit = |v: &Option<toml::Spanned<u64>>, default| match v {
            Some(n) if *n.get_ref() == 0 => None,
            Some(n) => Some(*n.get_ref()),
            None => Some(default),
        };
        let cpu_secs = limit(&s.cpu_secs, DEFAULT_CPU_SECS);
        let memory_mb = limit(&s.memory_mb, DEFAULT_MEMORY_MB);
        if let Some(mb) = s
            .memory_mb
            .as_ref()
            .filter(|m| *m.get_ref() > (u64::MAX >> 20))
        {
            return Err(src.invalid(mb.span(), "memory-mb", "is too large"));
        }
        let mut prefix = Vec::new();
        let program = |name: &str, key: &str, span: Option<std::ops::Range<usize>>| {
            let off = match key {
                "io-class" => "\"none\"",
                "cpu-class" => "\"normal\"",
                _ => "0",
            };
            find_program(name).ok_or_else(|| {
                src.invalid(
                    span.unwrap_or(0..0),
                    key,
                    format!("the program {name} is not on PATH (Debian: coreutils, util-linux); set {key} = {off} to do without"),
                )
            })
        };
        if cpu_class == CpuClass::Idle {
            let span = s.cpu_class.as_ref().map(|c| c.span());
            prefix.push(program("chrt", "cpu-class", span)?.into());
            prefix.extend(["--idle".into(), "0".into()]);
        }
        let cpu_args = prefix.len();
        if nice > 0 {
            prefix.push(program("nice", "nice", s.nice.as_ref().map(|n| n.span()))?.into());
            prefix.extend(["-n".into(), nice.to_string().into()]);
        }
        let class_args: &[&str] = match io_class {
            IoClass::None => &[],
            IoClass::BestEffort => &["-c", "2", "-n", "7"],
            IoClass::Idle => &["-c", "3"],
        };
        if !class_args.is_empty() {
            let span = s.io_class.as_ref().map(|c| c.span());
            prefix.push(program("ionice", "io-class", span)?.into());
            prefix.extend(class_args.iter().map(OsString::from));
        }
        if cpu_secs.is_some() || memory_mb.is_some() {
            let (key, span) = match (&s.cpu_secs, &s.memory_mb) {
                (Some(c), _) => ("cpu-secs", Some(c.span())),
                (_, Some(m)) => ("memory-mb", Some(m.span())),
                _ => ("cpu-secs", None),
            };
            let prlimit: PathBuf = program("prlimit", key, span)?;
            prefix.push(prlimit.into());
            if let Some(secs) = cpu_secs {
                prefix.push(format!("--cpu={secs}:{}", secs + CPU_HARD_MARGIN).into());
            }
            if let Some(mb) = memory_mb {
                prefix.push(format!("--data={}", mb << 20).into());
            }
            prefix.push("--".into());
        }
        Ok(Isolation {
            prefix,
            cpu_args,
            cpu_secs,
            memory_mb,
        })
    }

    /// The argv that starts `argv` with this isolation.
    pub(crate) fn wrap(&self, argv: &[OsString]) -> Vec<OsString> {
        let mut out = Vec::with_capacity(self.prefix.len() + argv.len());
        out.extend_from_slice(&self.prefix);
        out.extend_from_slice(argv);
        out
    }

    /// The argv that starts a version command: as [`Isolation::wrap`], but in the normal CPU
    /// class, so that the start-up's probes finish on a busy machine too (they run once).
    pub(crate) fn wrap_probe(&self, argv: &[OsString]) -> Vec<OsString> {
        let mut out = Vec::with_capacity(self.prefix.len() + argv.len());
        out.extend_from_slice(&self.prefix[self.cpu_args..]);
        out.extend_from_slice(argv);
        out
    }

    /// The programs put before every tool, for reports.
    pub(crate) fn describe(&self) -> String {
        if self.prefix.is_empty() {
            return "none".to_owned();
        }
        self.prefix
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Why a tool failed, when its stderr says an allocation failed under the memory limit.
    pub(crate) fn memory_note(&self, stderr: &[u8]) -> Option<String> {
        let mb = self.memory_mb?;
        let text = String::from_utf8_lossy(stderr);
        ALLOCATION_FAILURES
            .iter()
            .any(|p| text.contains(p))
            .then(|| format!("ran out of memory under its limit (memory-mb = {mb})"))
    }
}

/// What runtimes write on stderr when an allocation fails: C (`strerror(ENOMEM)`), Perl, Python,
/// the JVM, C++.
const ALLOCATION_FAILURES: &[&str] = &[
    "Cannot allocate memory",
    "Out of memory!",
    "out of memory",
    "MemoryError",
    "OutOfMemoryError",
    "insufficient memory",
    "std::bad_alloc",
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn from(text: &str) -> Result<Isolation, PluginsError> {
        let src = Source {
            path: Path::new("plugins.toml"),
            text,
        };
        Isolation::from_settings(&src, &src.parse()?.settings)
    }

    #[test]
    fn defaults_wrap_tools_in_chrt_nice_ionice_and_prlimit() {
        let iso = from("").unwrap();
        let argv = iso.wrap(&["tool".into(), "x".into()]);
        let text: Vec<String> = argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(text[0].ends_with("/chrt"), "{text:?}");
        assert_eq!(text[1..3], ["--idle", "0"]);
        let probe = iso.wrap_probe(&["tool".into()]);
        assert!(probe[0].to_string_lossy().ends_with("/nice"), "{probe:?}");
        let text = &text[3..];
        assert!(text[0].ends_with("/nice"), "{text:?}");
        assert_eq!(text[1..3], ["-n", "10"]);
        assert!(text[3].ends_with("/ionice"), "{text:?}");
        assert_eq!(text[4..8], ["-c", "2", "-n", "7"]);
        assert!(text[8].ends_with("/prlimit"), "{text:?}");
        assert_eq!(
            text[9..],
            ["--cpu=300:305", "--data=2147483648", "--", "tool", "x"]
        );
    }

    #[test]
    fn everything_off_is_no_wrapper() {
        let iso = from("[settings]\ncpu-class = \"normal\"\nnice = 0\nio-class = \"none\"\ncpu-secs = 0\nmemory-mb = 0\n")
            .unwrap();
        assert_eq!(iso.wrap(&["tool".into()]), [OsString::from("tool")]);
        assert_eq!(iso.describe(), "none");
    }

    #[test]
    fn bad_values_name_their_key() {
        for (text, key) in [
            ("[settings]\nnice = 20\n", "nice"),
            ("[settings]\nnice = -1\n", "nice"),
            ("[settings]\nio-class = \"realtime\"\n", "io-class"),
            ("[settings]\ncpu-class = \"realtime\"\n", "cpu-class"),
            (
                "[settings]\nmemory-mb = 18446744073709551615\n",
                "memory-mb",
            ),
        ] {
            match from(text) {
                Err(PluginsError::Invalid { key: k, line, .. }) => {
                    assert_eq!((k.as_str(), line), (key, 2), "{text}")
                }
                Err(other) => panic!("{text}: {other}"),
                Ok(_) => panic!("{text}: accepted"),
            }
        }
        let err = from("[settings]\ncpu-secs = \"a lot\"\n").unwrap_err();
        assert!(err.to_string().contains("cpu-secs"), "{err}");
    }

    #[test]
    fn allocation_failures_are_recognised_only_under_a_memory_limit() {
        let iso = from("").unwrap();
        assert!(iso.memory_note(b"Traceback\nMemoryError\n").is_some());
        assert!(iso.memory_note(b"Out of memory!\n").is_some());
        assert!(iso.memory_note(b"syntax error\n").is_none());
        let unlimited = from("[settings]\nmemory-mb = 0\n").unwrap();
        assert!(unlimited.memory_note(b"MemoryError").is_none());
    }
}
