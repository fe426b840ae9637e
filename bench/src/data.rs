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

/// `n` distinct JPEGs under `dir/img/`: the example site's photo (320 x 200, 4.2 KB) with a COM
/// segment naming the copy, so every file has its own bytes.
pub(crate) fn jpegs(repo: &Path, dir: &Path, n: usize, tag: &str) -> anyhow::Result<()> {
    let photo = fs::read(repo.join("examples/site/images/sunset.jpg"))?;
    copies(&photo, dir, n, tag)
}

/// `n` distinct JPEGs of a camera photo's weight under `dir/img/`: one 1024 x 768 picture (a
/// graded sky over a textured ground, with grain), baseline at quality 83, about 140 KB, each
/// copy named in a COM segment as in [`jpegs`]. The same bytes every run.
pub(crate) fn photos(dir: &Path, n: usize, tag: &str) -> anyhow::Result<()> {
    let (w, h) = (1024u16, 768u16);
    let mut grain = 0x2545_F491_4F6C_DD1Du64;
    let mut pixels = Vec::with_capacity(usize::from(w) * usize::from(h) * 3);
    for y in 0..u32::from(h) {
        for x in 0..u32::from(w) {
            // xorshift64: cheap, fixed noise.
            grain ^= grain << 13;
            grain ^= grain >> 7;
            grain ^= grain << 17;
            let n = (grain & 31) as u32;
            let (r, g, b) = if y < 400 {
                (90 + y / 8, 140 + y / 10, 230 - y / 6)
            } else {
                (60 + (x / 16) % 40, 110 + (x * y / 4096) % 60, 40 + y / 30)
            };
            let channel = |v: u32| v.min(255) as u8;
            pixels.extend_from_slice(&[channel(r + n), channel(g + n / 2), channel(b + n / 3)]);
        }
    }
    let mut photo = Vec::new();
    jpeg_encoder::Encoder::new(&mut photo, 83).encode(
        &pixels,
        w,
        h,
        jpeg_encoder::ColorType::Rgb,
    )?;
    copies(&photo, dir, n, tag)
}

/// Writes `n` copies of the JPEG `photo` as `dir/img/{tag}{i:04}.jpg`, each with a COM segment
/// naming it right after the SOI marker.
fn copies(photo: &[u8], dir: &Path, n: usize, tag: &str) -> anyhow::Result<()> {
    anyhow::ensure!(photo.starts_with(&[0xFF, 0xD8]), "the photo is not a JPEG");
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

/// Files per folder of [`small_files`]: a million files are 10,000 folders, each a folder set.
pub(crate) const FILES_PER_FOLDER: usize = 100;

/// `n` one-line text files, [`FILES_PER_FOLDER`] per folder: `d0000/f0000000.txt` …
pub(crate) fn small_files(dir: &Path, n: usize) -> anyhow::Result<Vec<String>> {
    let mut paths = Vec::with_capacity(n.min(1000));
    for i in 0..n {
        let folder = format!("d{:04}", i / FILES_PER_FOLDER);
        if i % FILES_PER_FOLDER == 0 {
            fs::create_dir_all(dir.join(&folder))?;
        }
        let name = format!("f{i:07}.txt");
        let mut f = fs::File::create(dir.join(&folder).join(&name))?;
        writeln!(f, "line {i}")?;
        if paths.len() < 1000 {
            paths.push(format!("{folder}/{name}"));
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
