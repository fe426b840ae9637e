//! `modoai completions SHELL` and `modoai man`: shell completions and manual pages generated
//! from the clap definitions, so they list exactly the flags the binary takes.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::CommandFactory;

use crate::cli::{Cli, CliError, CompletionsArgs, ManArgs};

/// Prints the completion script of `modoai` for the shell of `args`.
pub fn completions(args: &CompletionsArgs) -> Result<(), CliError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "modoai", &mut script);
    print_bytes(&script)
}

/// Prints the manual page of `modoai` or of the command `args.command` names, or with
/// `--out-dir` writes the pages of `modoai` and of every command into that folder.
pub fn man(args: &ManArgs) -> Result<(), CliError> {
    let top = built();
    if let Some(dir) = &args.out_dir {
        for page in write_pages(&top, dir)? {
            println!("{}", page.display());
        }
        return Ok(());
    }
    let cmd = find(&top, &args.command).ok_or_else(|| {
        CliError::Usage(format!(
            "modoai has no command {:?}: see `modoai --help` for its commands",
            args.command.join(" ")
        ))
    })?;
    let mut page = Vec::new();
    render(cmd, &mut page).map_err(CliError::runtime("rendering the manual page"))?;
    print_bytes(&page)
}

/// The command tree, built: each command knows its full name (`modoai-plugins-check`), which
/// is its page's name. No `help` command: `--help` is on every page.
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
fn write_pages(cmd: &clap::Command, dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    std::fs::create_dir_all(dir).map_err(|source| CliError::Argument {
        context: format!("cannot create the folder {}", dir.display()),
        source,
    })?;
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
        write().map_err(CliError::runtime(format!("writing {}", path.display())))?;
        written.push(path);
        todo.extend(cmd.get_subcommands().filter(|c| !c.is_hide_set()));
    }
    written.sort();
    Ok(written)
}

/// The roff page of `cmd`.
fn render(cmd: &clap::Command, out: &mut Vec<u8>) -> io::Result<()> {
    clap_mangen::Man::new(cmd.clone()).render(out)
}

/// Writes `bytes` to stdout. A reader that stops early (`modoai man | head`) is no failure.
fn print_bytes(bytes: &[u8]) -> Result<(), CliError> {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(CliError::runtime("writing to standard output")(e))
        }
        _ => Ok(()),
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
            "modoai.1",
            "modoai-serve.1",
            "modoai-plugins.1",
            "modoai-plugins-check.1",
            "modoai-plugins-explain.1",
            "modoai-hash-secret.1",
            "modoai-completions.1",
            "modoai-man.1",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
    }

    #[test]
    fn a_nested_command_is_found_by_its_path() {
        let top = built();
        let path = ["plugins".to_owned(), "check".to_owned()];
        let check = find(&top, &path).unwrap();
        let mut page = Vec::new();
        render(check, &mut page).unwrap();
        let page = String::from_utf8(page).unwrap();
        assert!(page.contains("modoai\\-plugins\\-check"), "{page}");
        assert!(page.contains("\\-\\-json"), "{page}");
        assert!(find(&top, &["nothing".to_owned()]).is_none());
    }
}
