//! [`Exit`]: the one exit-code policy of the three programs.

use std::process::ExitCode;

/// How a command ended, as its exit code tells a shell or a scheduler. `modoai`,
/// `modoai-harvester` and `modoai-explorer` share this policy (README.md "Exit codes"); each
/// program's `--help` lists the codes it uses, with what they mean for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exit {
    /// 0: done.
    Done,
    /// 1: the command ran but failed, stopped early or found nothing; the message says why, and
    /// running it again may succeed.
    Failed,
    /// 2: bad usage, arguments or configuration: nothing was done. clap's own usage errors exit
    /// with 2 as well.
    Usage,
    /// 3: done, with problems the command reports (items not archived, plugins missing).
    Problems,
    /// 130: interrupted by SIGINT or SIGTERM at a safe point; the same command again continues.
    /// 128 + SIGINT, as shells report a process that Ctrl-C ended.
    Interrupted,
}

impl Exit {
    /// Every code, in the order `--help` lists them.
    pub const ALL: [Exit; 5] = [
        Exit::Done,
        Exit::Failed,
        Exit::Usage,
        Exit::Problems,
        Exit::Interrupted,
    ];

    /// The process exit code.
    pub const fn code(self) -> u8 {
        match self {
            Exit::Done => 0,
            Exit::Failed => 1,
            Exit::Usage => 2,
            Exit::Problems => 3,
            Exit::Interrupted => 130,
        }
    }

    /// The `Exit codes:` block of a top-level `--help`: one line per code the program uses, with
    /// what it means there. A new line in a meaning continues it, indented under the text.
    ///
    /// ```
    /// use modoai_cli::Exit;
    /// let help = Exit::help(&[(Exit::Done, "done"), (Exit::Interrupted, "interrupted;\nrun again")]);
    /// assert_eq!(help, "Exit codes:\n  0  done\n  130 interrupted;\n     run again");
    /// ```
    pub fn help(meanings: &[(Exit, &str)]) -> String {
        let mut out = String::from("Exit codes:");
        for (exit, meaning) in meanings {
            let meaning = meaning.replace('\n', "\n     ");
            out.push_str(&format!("\n  {:<2} {meaning}", exit.code()));
        }
        out
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codes_are_those_of_the_policy() {
        let codes: Vec<u8> = Exit::ALL.iter().map(|e| e.code()).collect();
        assert_eq!(codes, [0, 1, 2, 3, 130]);
    }

    #[test]
    fn help_lines_start_with_the_code_and_continue_indented() {
        let help = Exit::help(&[
            (Exit::Done, "done"),
            (Exit::Failed, "stopped early (run\nagain)"),
        ]);
        assert_eq!(
            help,
            "Exit codes:\n  0  done\n  1  stopped early (run\n     again)"
        );
    }
}
