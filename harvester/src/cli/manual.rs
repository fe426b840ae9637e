//! `modoai-harvester completions SHELL` and `modoai-harvester man`: shell completions and manual
//! pages generated from the clap definitions, so they list exactly the flags the binary takes.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Args, CommandFactory};

use super::{usage, Cli, EXIT_OK};

/// The arguments of `completions`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// The arguments of `man`.
#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// The command whose page to print, e.g. `harvest` or `inspect archive` [default:
    /// modoai-harvester itself]
    #[arg(value_name = "COMMAND")]
    command: Vec<String>,
    /// Write the pages of modoai-harvester and of every command into this folder (created if
    /// missing), named modoai-harvester.1, modoai-harvester-harvest.1, …, instead of printing one.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    out_dir: Option<PathBuf>,
}

/// After `completions --help`.
pub(crate) const COMPLETIONS_HELP: &str = "\
Install (one of):
  modoai-harvester completions bash > ~/.local/share/bash-completion/completions/modoai-harvester
  modoai-harvester completions zsh > ~/.zfunc/_modoai-harvester    # fpath+=(~/.zfunc)
  modoai-harvester completions fish > ~/.config/fish/completions/modoai-harvester.fish

Exit codes (the policy: modoai-harvester --help):
  0  printed
  1  standard output could not be written";

/// After `man --help`.
pub(crate) const MAN_HELP: &str = "\
Examples:
  modoai-harvester man | man -l -
  modoai-harvester man inspect archive | man -l -
  modoai-harvester man --out-dir /usr/local/share/man/man1

Exit codes (the policy: modoai-harvester --help):
  0  printed or written
  1  the page could not be written
  2  no such command";

/// Prints the completion script of `modoai-harvester` for the shell of `args`.
pub(crate) fn completions(args: &CompletionsArgs) -> anyhow::Result<u8> {
    let mut script = Vec::new();
    let name = "modoai-harvester";
    clap_complete::generate(args.shell, &mut Cli::command(), name, &mut script);
    print_bytes(&script)
}

/// Prints the manual page of `modoai-harvester` or of the command `args.command` names, or with
/// `--out-dir` writes the pages of every command into that folder.
pub(crate) fn man(args: &ManArgs) -> anyhow::Result<u8> {
    let top = built();
    if let Some(dir) = &args.out_dir {
        for page in write_pages(&top, dir)? {
            println!("{}", page.display());
        }
        return Ok(EXIT_OK);
    }
    let Some(cmd) = find(&top, &args.command) else {
        return Err(usage(format!(
            "modoai-harvester has no command {:?}: see `modoai-harvester --help` for its commands",
            args.command.join(" ")
        )));
    };
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut page)?;
    print_bytes(&page)
}

/// The command tree, built: each command knows its full name (`modoai-harvester-inspect-archive`),
/// which is its page's name. No `help` command: `--help` is on every page.
fn built() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// The command that `path` (names of nested commands) leads to from `top`.
fn find<'a>(top: &'a clap::Command, path: &[String]) -> Option<&'a clap::Command> {
    path.iter()
        .try_fold(top, |cmd, name| cmd.find_subcommand(name))
}

/// Writes the page of `cmd` and of each of its commands into `dir`; returns their paths.
fn write_pages(cmd: &clap::Command, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| usage(format!("cannot create the folder {}: {e}", dir.display())))?;
    let mut written = Vec::new();
    let mut todo = vec![cmd];
    while let Some(cmd) = todo.pop() {
        let man = clap_mangen::Man::new(cmd.clone());
        let path = dir.join(man.get_filename());
        let write = || -> io::Result<()> {
            let mut file = io::BufWriter::new(std::fs::File::create(&path)?);
            man.render(&mut file)?;
            file.flush()
        };
        write().with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
        todo.extend(cmd.get_subcommands().filter(|c| !c.is_hide_set()));
    }
    written.sort();
    Ok(written)
}

/// Writes `bytes` to stdout. A reader that stops early (`man | head`) is no failure.
fn print_bytes(bytes: &[u8]) -> anyhow::Result<u8> {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write to standard output")
        }
        _ => Ok(EXIT_OK),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_a_page_named_after_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let pages = write_pages(&built(), dir.path()).unwrap();
        let names: Vec<String> = pages
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        for name in [
            "modoai-harvester.1",
            "modoai-harvester-harvest.1",
            "modoai-harvester-inspect-archive.1",
            "modoai-harvester-completions.1",
            "modoai-harvester-man.1",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
    }
}
