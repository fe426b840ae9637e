//! How a command that failed ends: its message on standard error, and the exit code its error
//! maps to.
//!
//! The message is `PROGRAM: error: WHAT: WHY…`. The program's name comes first, as Unix tools
//! write it (`cp: cannot stat …`), because a program's standard error is often shared: the
//! harvester's `--index` runs the explorer on its own standard error, a scheduler's log holds
//! many programs, and a shell script's stderr holds every command it runs. `error:` follows, as
//! cargo and rustc write it, because the log lines of the same stream say `WARN` or `ERROR` and a
//! run's last word should say as plainly that the command failed.

use std::error::Error as StdError;
use std::fmt::Display;
use std::io;
use std::process::ExitCode;

use crate::manual::ManualError;
use crate::Exit;

/// A mistake in the command line or in a file it names: nothing was done ([`Exit::Usage`]).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Usage(String);

impl Usage {
    /// A usage error with this message.
    pub fn new(message: impl Into<String>) -> Usage {
        Usage(message.into())
    }
}

/// A [`Usage`] error with this message, as an [`anyhow::Error`].
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    Usage::new(message).into()
}

/// Writes `PROGRAM: error: MESSAGE` on standard error (the module docs say why this form).
pub fn report(program: &str, message: impl Display) {
    eprintln!("{program}: error: {message}");
}

/// Whether `error` is standard output closed by its reader (`… | head`): the output is not
/// wanted any more, so the command ends quietly and with 0, as other Unix tools do.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|e| {
        e.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// The exit code of a command that failed with `error`. [`Usage`] anywhere in its chain of
/// causes makes it [`Exit::Usage`] (nothing was done, whatever else went wrong); otherwise the
/// first cause that [`ManualError::exit`] or the program's own `classify` sorts decides; an
/// error nobody sorts is [`Exit::Failed`].
pub fn exit_of(
    error: &anyhow::Error,
    classify: impl Fn(&(dyn StdError + 'static)) -> Option<Exit>,
) -> Exit {
    let mut first = None;
    for cause in error.chain() {
        let exit = if cause.is::<Usage>() {
            Some(Exit::Usage)
        } else if let Some(manual) = cause.downcast_ref::<ManualError>() {
            Some(manual.exit())
        } else {
            classify(cause)
        };
        match exit {
            Some(Exit::Usage) => return Exit::Usage,
            Some(exit) if first.is_none() => first = Some(exit),
            _ => {}
        }
    }
    first.unwrap_or(Exit::Failed)
}

/// Ends a program's `main`: the outcome's code; for an error, the code [`exit_of`] gives it
/// after [`report`]ing it, except a [broken pipe](is_broken_pipe), which ends quietly with 0.
pub fn finish(
    program: &str,
    outcome: anyhow::Result<Exit>,
    classify: impl Fn(&(dyn StdError + 'static)) -> Option<Exit>,
) -> ExitCode {
    match outcome {
        Ok(exit) => exit.into(),
        Err(error) if is_broken_pipe(&error) => Exit::Done.into(),
        Err(error) => {
            report(program, format_args!("{error:#}"));
            exit_of(&error, classify).into()
        }
    }
}

#[cfg(test)]
mod tests {
    use anyhow::Context as _;

    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("stopped")]
    struct Stopped(#[source] Option<Usage>);

    fn stopped(e: &(dyn StdError + 'static)) -> Option<Exit> {
        e.is::<Stopped>().then_some(Exit::Interrupted)
    }

    #[test]
    fn usage_anywhere_in_the_chain_wins() {
        let error = anyhow::Error::new(Stopped(Some(Usage::new("bad flag"))));
        assert_eq!(exit_of(&error, stopped), Exit::Usage);
        let error = usage("bad flag").context("cannot open the archive");
        assert_eq!(exit_of(&error, stopped), Exit::Usage);
    }

    #[test]
    fn the_programs_own_causes_decide_then_failed() {
        let error = anyhow::Error::new(Stopped(None)).context("cannot index x");
        assert_eq!(exit_of(&error, stopped), Exit::Interrupted);
        let error = anyhow::anyhow!("the address is in use");
        assert_eq!(exit_of(&error, stopped), Exit::Failed);
    }

    #[test]
    fn a_closed_standard_output_is_found_below_context() {
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        let error = Err::<(), _>(pipe).context("writing the list").unwrap_err();
        assert!(is_broken_pipe(&error));
        assert!(!is_broken_pipe(&anyhow::anyhow!("broken pipe")));
    }
}
