//! `PROGRAM completions SHELL` and `PROGRAM man`: shell completions and manual pages generated
//! from a program's clap definition, so they list exactly the flags it takes.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::Exit;

/// The arguments of a `completions` command.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The arguments of a `man` command.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// The command whose page to print, as the words that follow the program's name [default:
    /// the program itself]
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
    /// Write the pages of the program and of every command into this folder (created if
    /// missing), named PROGRAM.1, PROGRAM-COMMAND.1, …, instead of printing one.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub out_dir: Option<PathBuf>,
}

/// Why a page or a script was not given.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManualError {
    /// `man` was asked for a command the program does not have.
    #[error("{program} has no command {command:?}: see `{program} --help` for its commands")]
    NoSuchCommand {
        /// The program.
        program: String,
        /// The words asked for.
        command: String,
    },
    /// The folder of `--out-dir` cannot be made.
    #[error("cannot create the folder {}", dir.display())]
    Folder {
        /// The folder.
        dir: PathBuf,
        /// Why not.
        source: io::Error,
    },
    /// A page cannot be written into the folder.
    #[error("cannot write {}", path.display())]
    Write {
        /// The page's file.
        path: PathBuf,
        /// Why not.
        source: io::Error,
    },
    /// Standard output cannot be written.
    #[error("cannot write to standard output")]
    Stdout(#[source] io::Error),
}

impl ManualError {
    /// [`Exit::Usage`] for a command that does not exist or a folder that cannot be made
    /// (nothing was written), else [`Exit::Failed`].
    pub fn exit(&self) -> Exit {
        match self {
            ManualError::NoSuchCommand { .. } | ManualError::Folder { .. } => Exit::Usage,
            ManualError::Write { .. } | ManualError::Stdout(_) => Exit::Failed,
        }
    }
}

/// Prints the completion script of the program `cmd` defines for the shell of `args`.
pub fn completions(mut cmd: clap::Command, args: &CompletionsArgs) -> Result<(), ManualError> {
    let name = cmd.get_name().to_owned();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, name, &mut script);
    print_bytes(&script)
}

/// Prints the manual page of the program `cmd` defines or of the command `args.command` names,
/// or with `--out-dir` writes the pages of the program and of every command into that folder
/// and prints their paths.
pub fn man(cmd: clap::Command, args: &ManArgs) -> Result<(), ManualError> {
    if let Some(dir) = &args.out_dir {
        let mut list = String::new();
        for page in man_pages(cmd, dir)? {
            list.push_str(&format!("{}\n", page.display()));
        }
        return print_bytes(list.as_bytes());
    }
    print_bytes(&man_page(cmd, &args.command)?)
}

/// The roff page of the command that `path` (names of nested commands) leads to in `cmd`.
pub fn man_page(cmd: clap::Command, path: &[String]) -> Result<Vec<u8>, ManualError> {
    let top = built(cmd);
    let found = path
        .iter()
        .try_fold(&top, |cmd, name| cmd.find_subcommand(name))
        .ok_or_else(|| ManualError::NoSuchCommand {
            program: top.get_name().to_owned(),
            command: path.join(" "),
        })?;
    let mut page = Vec::new();
    clap_mangen::Man::new(found.clone())
        .render(&mut page)
        .expect("a page renders into memory");
    Ok(page)
}

/// Writes the page of the program `cmd` defines and of each of its commands into `dir` (made
/// if missing), each named after its command's path (`modoai-plugins-check.1`); returns their
/// paths, sorted.
pub fn man_pages(cmd: clap::Command, dir: &Path) -> Result<Vec<PathBuf>, ManualError> {
    std::fs::create_dir_all(dir).map_err(|source| ManualError::Folder {
        dir: dir.to_owned(),
        source,
    })?;
    let top = built(cmd);
    let mut written = Vec::new();
    let mut todo = vec![&top];
    while let Some(cmd) = todo.pop() {
        let man = clap_mangen::Man::new(cmd.clone());
        let path = dir.join(man.get_filename());
        let write = || -> io::Result<()> {
            let mut file = io::BufWriter::new(std::fs::File::create(&path)?);
            man.render(&mut file)?;
            file.flush()
        };
        write().map_err(|source| ManualError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
        todo.extend(cmd.get_subcommands().filter(|c| !c.is_hide_set()));
    }
    written.sort();
    Ok(written)
}

/// The command tree, built: each command knows its full name (`modoai-plugins-check`), which
/// is its page's name. No `help` command: `--help` is on every page.
fn built(cmd: clap::Command) -> clap::Command {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Writes `bytes` to standard output. A reader that stops early (`man | head`) gives an error
/// the program ends quietly on ([`crate::is_broken_pipe`]).
fn print_bytes(bytes: &[u8]) -> Result<(), ManualError> {
    let mut stdout = io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(ManualError::Stdout)
}

/// The `completions --help` text after the flags of `program`: where to install the script,
/// and the exit codes.
pub fn completions_help(program: &str) -> String {
    format!(
        "\
Install (one of):
  {program} completions bash > ~/.local/share/bash-completion/completions/{program}
  {program} completions zsh > ~/.zfunc/_{program}    # with fpath+=(~/.zfunc) before compinit
  {program} completions fish > ~/.config/fish/completions/{program}.fish

Exit codes (the policy: {program} --help):
  0  printed
  1  standard output could not be written"
    )
}

/// The `man --help` text after the flags of `program`: examples with one of its `nested`
/// commands (`plugins check`) and its `first` command (`serve`), and the exit codes.
pub fn man_help(program: &str, nested: &str, first: &str) -> String {
    format!(
        "\
Examples:
  {program} man | man -l -
  {program} man {nested} | man -l -
  {program} man --out-dir /usr/local/share/man/man1    # {program}.1, {program}-{first}.1, …

Exit codes (the policy: {program} --help):
  0  printed or written
  1  a page could not be written
  2  no such command, or the folder cannot be created: nothing was written"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program with a nested command, a hidden one and a flag.
    fn tool() -> clap::Command {
        clap::Command::new("tool")
            .subcommand(
                clap::Command::new("keys")
                    .subcommand(clap::Command::new("add").arg(clap::Arg::new("json").long("json"))),
            )
            .subcommand(clap::Command::new("secret").hide(true))
    }

    #[test]
    fn every_visible_command_has_a_page_named_after_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let pages = man_pages(tool(), &dir.path().join("man1")).unwrap();
        let names: Vec<String> = pages
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["tool-keys-add.1", "tool-keys.1", "tool.1"]);
    }

    #[test]
    fn a_nested_command_is_found_by_its_words_and_a_missing_one_is_a_usage_error() {
        let path = ["keys".to_owned(), "add".to_owned()];
        let page = String::from_utf8(man_page(tool(), &path).unwrap()).unwrap();
        assert!(page.contains("tool\\-keys\\-add"), "{page}");
        assert!(page.contains("\\-\\-json"), "{page}");
        let missing = man_page(tool(), &["nothing".to_owned()]).unwrap_err();
        assert_eq!(missing.exit(), Exit::Usage);
        assert_eq!(
            missing.to_string(),
            "tool has no command \"nothing\": see `tool --help` for its commands"
        );
    }
}
