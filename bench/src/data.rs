//! The bench's own data: random files, JPEGs, trees of small files, a large sparse file.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use rand::RngCore as _;

/// `n` files of `size` random (incompressible) bytes: `f00.bin` …
pub(crate) fn random_files(dir: &Path, n: usize, size: usize) -> anyhow::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut rng = rand::rng();
    let mut buf = vec![0u8; size];
    let mut out = Vec::new();
    for i in 0..n {
        rng.fill_bytes(&mut buf);
        let p = dir.join(format!("f{i:02}.bin"));
        fs::write(&p, &buf)?;
        out.push(p);
    }
    Ok(out)
}

/// `n` distinct JPEGs under `dir/img/`: the example site's photo with a COM segment naming the
/// copy, so every file has its own bytes.
pub(crate) fn jpegs(repo: &Path, dir: &Path, n: usize, tag: &str) -> anyhow::Result<()> {
    let photo = fs::read(repo.join("examples/site/images/sunset.jpg"))?;
    anyhow::ensure!(photo.starts_with(&[0xFF, 0xD8]), "sunset.jpg is not a JPEG");
    let img = dir.join("img");
    fs::create_dir_all(&img)?;
    for i in 0..n {
        let comment = format!("modoai bench {tag} {i}");
        let len = (comment.len() + 2) as u16;
        let mut bytes = Vec::with_capacity(photo.len() + comment.len() + 4);
        bytes.extend_from_slice(&photo[..2]);
        bytes.extend_from_slice(&[0xFF, 0xFE]);
        bytes.extend_from_slice(&len.to_be_bytes());
        bytes.extend_from_slice(comment.as_bytes());
        bytes.extend_from_slice(&photo[2..]);
        fs::write(img.join(format!("{tag}{i:04}.jpg")), bytes)?;
    }
    Ok(())
}

/// `n` one-line text files, 1000 per folder: `d0000/f0000000.txt` …
pub(crate) fn small_files(dir: &Path, n: usize) -> anyhow::Result<Vec<String>> {
    let mut paths = Vec::with_capacity(n.min(1000));
    for i in 0..n {
        let folder = dir.join(format!("d{:04}", i / 1000));
        if i % 1000 == 0 {
            fs::create_dir_all(&folder)?;
        }
        let name = format!("f{i:07}.txt");
        let mut f = fs::File::create(folder.join(&name))?;
        writeln!(f, "line {i}")?;
        if paths.len() < 1000 {
            paths.push(format!("d{:04}/{name}", i / 1000));
        }
    }
    Ok(paths)
}

/// A sparse file of `size` bytes (zeros).
pub(crate) fn sparse(path: &Path, size: u64) -> anyhow::Result<()> {
    fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
    fs::File::create(path)?.set_len(size)?;
    Ok(())
}

/// A copy of the repository's plugins.toml with its cache in `cache` (a fresh folder = cold).
pub(crate) fn plugins_toml(repo: &Path, dir: &Path, cache: &Path) -> anyhow::Result<PathBuf> {
    let text = fs::read_to_string(repo.join("plugins.toml"))?;
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("cache-dir"))
        .ok_or_else(|| anyhow::anyhow!("plugins.toml has no cache-dir"))?;
    let text = text.replacen(
        line,
        &format!("cache-dir = {:?}", cache.display().to_string()),
        1,
    );
    fs::create_dir_all(dir)?;
    let path = dir.join("plugins.toml");
    fs::write(&path, text)?;
    Ok(path)
}
