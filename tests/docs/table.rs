//! The table: every shell command of the docs, and how this test runs it.

/// How the test runs one documented command.
pub(crate) enum How {
    /// CI runs it: a `scripts/…` command whose script `scripts/test` calls (or `scripts/test`
    /// itself, which `.ci/run` calls), or a line that `scripts/test` runs verbatim.
    Ci,
    /// A server: started on a free port (`127.0.0.1:8080` becomes `127.0.0.1:0` and the address it
    /// prints is used), `probe` fetched until it answers 200 with `expect` in the body, then stopped
    /// with SIGTERM, after which it must exit 0. `scripts/…` parts before `&&` are checked as
    /// [`How::Ci`].
    Serve {
        probe: &'static str,
        expect: &'static str,
    },
    /// Run for real with `bash -c` in the shared work folder, against the fixture server (the doc's
    /// `127.0.0.1:8080` becomes its address); the exit code must be one of `codes` and the output
    /// (stdout and stderr) must contain `expect`.
    Run {
        codes: &'static [i32],
        expect: &'static str,
        prepare: Prepare,
    },
    /// Run by another test: `script` must hold each of `words`, and `runner` (a test source
    /// file) must run `script`.
    Peer {
        script: &'static str,
        words: &'static [&'static str],
        runner: &'static str,
    },
    /// A `cargo` command that builds the workspace or runs its tests (running it here would run
    /// the suite inside itself): each `-p PACKAGE` must be a workspace package, `--test NAME`
    /// one of its test binaries, `--lib` its library, and a filter after `--test NAME` a module
    /// that binary declares.
    Cargo,
}

/// What a [`How::Run`] command needs before it runs.
#[derive(Clone, Copy)]
pub(crate) enum Prepare {
    /// Nothing.
    Nothing,
    /// Write the ```` ```toml ```` block of `doc` that contains `marker` to `file` in the work
    /// folder (with the fixture server's address).
    TomlBlock {
        doc: &'static str,
        marker: &'static str,
        file: &'static str,
    },
    /// Replace the quoted PWID of the command by the real one of the part whose URL ends with
    /// `url_suffix` in the archive `archive` (the doc's PWID names an example capture time).
    Pwid {
        archive: &'static str,
        url_suffix: &'static str,
    },
    /// An S3 server (s3s-fs, tests/src/s3.rs, started once and kept for later commands) with the
    /// bucket `archives`: the doc's `127.0.0.1:9000` becomes its address.
    S3,
}

/// One documented command.
pub(crate) struct Entry {
    /// The command exactly as the docs write it (continuation lines joined by one space).
    pub(crate) command: &'static str,
    /// How the test runs it.
    pub(crate) how: How,
}

const fn run(command: &'static str, expect: &'static str) -> Entry {
    Entry {
        command,
        how: How::Run {
            codes: &[0],
            expect,
            prepare: Prepare::Nothing,
        },
    }
}

const fn cargo(command: &'static str) -> Entry {
    Entry {
        command,
        how: How::Cargo,
    }
}

const fn ci(command: &'static str) -> Entry {
    Entry {
        command,
        how: How::Ci,
    }
}

/// Every command of the docs, in the order the [`How::Run`] ones run (later ones use the archive
/// the first harvest writes).
pub(crate) const TABLE: &[Entry] = &[
    // README.md
    Entry {
        command: "scripts/setup && cargo run -p modoai -- serve --root examples/site --listen 127.0.0.1:8080 --plugins plugins.toml",
        how: How::Serve {
            probe: "/modoai?verb=ListMetadataFormats",
            expect: "oai_crate",
        },
    },
    ci("scripts/test"),
    // CONTRIBUTING.md
    ci("cargo fmt --all -- --check"),
    ci("cargo clippy --workspace --all-targets --locked -- -D warnings"),
    ci("cargo test --workspace --all-targets --locked"),
    // docs/webmasters.md
    Entry {
        command: "cargo run -p modoai -- serve --root examples/site --listen 127.0.0.1:8080",
        how: How::Serve {
            probe: "/modoai?verb=Identify",
            expect: "<repositoryName>",
        },
    },
    Entry {
        command: "cargo run -p modoai -- serve --root examples/site --listen 127.0.0.1:8080 --access-log combined",
        how: How::Serve {
            probe: "/healthz",
            expect: "ok",
        },
    },
    run("cargo run -p modoai -- serve --help", "--plugins"),
    run(
        "curl -sI http://127.0.0.1:8080/images/logo.png | grep -i '^link:'",
        "rel=\"cite-as\"",
    ),
    run(
        ".venv/bin/resync-sync --baseline http://127.0.0.1:8080/ copy-of-site",
        "SYNCED (same=0, created=14",
    ),
    run(
        "cargo run -p modoai -- records --root examples/site --plugins plugins.toml",
        "14 records, 2 paths not published (2 hidden)",
    ),
    run(
        r#"printf '%s\n' "$PW" | cargo run -q -p modoai -- hash-secret"#,
        "$argon2id$",
    ),
    run(
        r#"printf '%s\n' "$KEY" | cargo run -q -p modoai -- hash-secret --api-key"#,
        "sha256:",
    ),
    run(
        "cargo run -q -p modoai -- man --out-dir man/man1",
        "man/man1/modoai-serve.1",
    ),
    run(
        "cargo run -q -p modoai-harvester -- man --out-dir man/man1",
        "man/man1/modoai-harvester-harvest.1",
    ),
    run(
        "cargo run -q -p modoai-explorer -- man --out-dir man/man1",
        "man/man1/modoai-explorer-index.1",
    ),
    // docs/plugins.md
    Entry {
        command: "cargo run -p modoai -- plugins check --plugins plugins.toml",
        how: How::Run {
            // 3: a tool is missing on this machine (scripts/setup installs them all).
            codes: &[0, 3],
            expect: "exiftool",
            prepare: Prepare::Nothing,
        },
    },
    run(
        "cargo run -p modoai -- plugins explain examples/site/images/sunset.jpg --plugins plugins.toml",
        "image/jpeg",
    ),
    Entry {
        command: "cargo run -q -p modoai -- plugins check --json --plugins plugins.toml",
        how: How::Run {
            // 3: a tool is missing on this machine, as above.
            codes: &[0, 3],
            expect: "\"status\": \"ok\"",
            prepare: Prepare::Nothing,
        },
    },
    ci("scripts/setup"),
    // docs/archivists.md
    run(
        "cargo run -p modoai-harvester -- harvest http://127.0.0.1:8080/modoai --archive my-archive --metadata-prefix oai_crate",
        "complete",
    ),
    run(
        "cargo run -p modoai-harvester -- inspect archive my-archive",
        "14 items",
    ),
    run(
        "cargo run -p modoai-harvester -- inspect endpoint http://127.0.0.1:8080/modoai --sets",
        "mime:image",
    ),
    run(
        "cargo run -p modoai-harvester -- inspect archive my-archive --json",
        "\"open_warc_files\": 0",
    ),
    run(
        "cargo run -p modoai-harvester -- repair --archive my-archive",
        "nothing to repair",
    ),
    Entry {
        command: "AWS_ACCESS_KEY_ID=modoai-test AWS_SECRET_ACCESS_KEY=modoai-test-secret AWS_ENDPOINT_URL=http://127.0.0.1:9000 cargo run -p modoai-harvester -- harvest http://127.0.0.1:8080/modoai --archive stored-archive --store s3://archives/site-a",
        how: How::Run {
            codes: &[0],
            expect: "moved to s3://archives/site-a",
            prepare: Prepare::S3,
        },
    },
    run(
        "cargo run -p modoai-harvester -- inspect archive stored-archive",
        "more WARC files in s3://archives/site-a",
    ),
    Entry {
        command: "AWS_ACCESS_KEY_ID=modoai-test AWS_SECRET_ACCESS_KEY=modoai-test-secret AWS_ENDPOINT_URL=http://127.0.0.1:9000 cargo run -p modoai-harvester -- fetch-archive --store s3://archives/site-a --out fetched-archive",
        how: How::Run {
            codes: &[0],
            expect: "fetched",
            prepare: Prepare::S3,
        },
    },
    Entry {
        command: "cargo run -p modoai-harvester -- harvest-list harvests.toml --jobs 2",
        how: How::Run {
            codes: &[0],
            expect: "complete",
            prepare: Prepare::TomlBlock {
                doc: "docs/archivists.md",
                marker: "[[endpoint]]",
                file: "harvests.toml",
            },
        },
    },
    run(
        "cargo run -p modoai-harvester -- harvest-list harvests.toml --shard 0/2 --report report.json",
        "endpoints:",
    ),
    run(
        "cargo run -p modoai-harvester -- merge --archive list-archive --archive my-archive --out merged-archive",
        "merged 2 archives into merged-archive",
    ),
    run(
        "cargo run -p modoai-harvester -- inspect archive my-archive --parts",
        "urn:pwid:",
    ),
    Entry {
        command: "cargo run -p modoai-harvester -- pwid resolve 'urn:pwid:archive.example.org:2026-11-24T10:07:52Z:part:http://127.0.0.1:8080/images/logo.png' --archive my-archive --extract logo.png",
        how: How::Run {
            codes: &[0],
            expect: "bytes extracted",
            prepare: Prepare::Pwid {
                archive: "my-archive",
                url_suffix: "/images/logo.png",
            },
        },
    },
    run(
        "cargo run -p modoai-harvester -- corpus --archive my-archive --set mime:image --out corpus.xml",
        "parts",
    ),
    run(
        "cargo run -p modoai-harvester -- profile --archive my-archive --out my-archive.ukvs",
        "lines in",
    ),
    run(
        "cargo run -p modoai-harvester -- profile compact my-archive.ukvs small.ukvs",
        "lines in",
    ),
    run(
        "cargo run -p modoai-harvester -- profile lookup small.ukvs http://127.0.0.1:8080/images/logo.png",
        "/images/logo.png",
    ),
    run(
        "cargo run -p modoai-harvester -- corpus --archive my-archive --at 2030-01-01 --out site-2030.xml",
        "parts",
    ),
    run(
        "cargo run -p modoai-harvester -- corpus --archive my-archive --deleted --from 2026-01-01 --out deleted.xml",
        "parts",
    ),
    run(
        "cargo run -p modoai-harvester -- wacz --archive my-archive --out my-archive.wacz --title 'Example site'",
        "pages",
    ),
    run(".venv/bin/wacz validate -f my-archive.wacz", "succeeded"),
    Entry {
        command: ".venv/bin/wb-manager init my-collection",
        how: PYWB,
    },
    Entry {
        command: ".venv/bin/wb-manager add my-collection my-archive/warcs/*.warc.gz",
        how: PYWB,
    },
    Entry {
        command: ".venv/bin/wayback --bind 127.0.0.1 --port 8090",
        how: PYWB,
    },
    // docs/architecture.md
    ci("scripts/bench"),
    // docs/testing.md
    cargo("cargo build --bins"),
    cargo("cargo nextest run -p integration-tests --test server verbs"),
    cargo("cargo nextest run -p integration-tests --test harvester faults"),
    cargo("cargo nextest run -p integration-tests --test server -E 'not (test(crate_tools) | test(memory) | test(interop))'"),
    cargo("cargo nextest run -p modoai-harvester --test integration client"),
    cargo("cargo nextest run -p modoai-archive --test integration warc"),
    cargo("cargo nextest run -p integration-tests --test explorer keys"),
    cargo("cargo nextest run -p integration-tests --test docs"),
    cargo("cargo test -p modoai --lib"),
    cargo("cargo test -p modoai-protocol"),
    cargo("cargo test -p modoai-tools"),
    cargo("cargo test -p modoai-gate"),
    ci("scripts/fuzz page --minutes 60"),
    // README.md and docs/explorer.md: after the harvests above, in their archive.
    run(
        "cargo run -p modoai-explorer -- index --archive my-archive",
        "in the index",
    ),
    run(
        "cargo run -p modoai-harvester -- harvest http://127.0.0.1:8080/modoai --archive my-archive --index",
        "in the index",
    ),
    run(
        "cargo run -p modoai-explorer -- keys add alice --quota 1000/hour --rate 5/s",
        "added",
    ),
    run(
        "cargo run -p modoai-explorer -- keys add images-only --allow 'mime:image/*'",
        "added",
    ),
    run("cargo run -p modoai-explorer -- keys list", "images-only"),
    run(
        "cargo run -p modoai-explorer -- keys revoke images-only",
        "revoked",
    ),
    Entry {
        command: "cargo run -p modoai-explorer -- serve --archive my-archive --listen 127.0.0.1:8091",
        how: EXPLORER_SERVE,
    },
    Entry {
        command: "cargo run -p modoai-explorer -- index --archive some-crawl/",
        how: How::Peer {
            script: "README.md",
            words: &["cargo run -p modoai-explorer -- index --archive some-crawl/"],
            runner: "tests/explorer/foreign.rs",
        },
    },
    Entry {
        command: "cargo run -p modoai-explorer -- serve --archive my-archive --listen 127.0.0.1:8091 --config explorer.toml",
        how: How::Peer {
            script: "docs/explorer.md",
            words: &["--config explorer.toml", "[access]"],
            runner: "tests/explorer/docs.rs",
        },
    },
    cargo("MODOAI_SCREENSHOTS=$PWD/docs/screenshots cargo nextest run -p integration-tests --test server browser"),
    cargo("MODOAI_SCREENSHOTS=$PWD/docs/screenshots cargo nextest run -p integration-tests --test explorer ui"),
];

/// The explorer's server: `tests/explorer/docs.rs` starts it as the README writes it, on an
/// indexed archive, and asks its API with a key.
const EXPLORER_SERVE: How = How::Peer {
    script: "README.md",
    words: &["cargo run -p modoai-explorer -- serve --archive my-archive --listen 127.0.0.1:8091"],
    runner: "tests/explorer/docs.rs",
};

/// pywb's replay steps: `tests/harvester/our_server.rs` runs the README's block of them as
/// written (on a harvest of the example site, the root page included); `tests/python/
/// pywb_replay.py` runs the same steps for the other end-to-end tests.
const PYWB: How = How::Peer {
    script: "README.md",
    words: &[
        ".venv/bin/wb-manager init my-collection",
        ".venv/bin/wb-manager add my-collection my-archive/warcs/*.warc.gz",
        ".venv/bin/wayback --bind 127.0.0.1 --port 8090",
    ],
    runner: "tests/harvester/our_server.rs",
};
