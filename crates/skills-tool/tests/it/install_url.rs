//! `skills install` of a `SKILL.md` URL: the whole skill from its repository, and the file
//! alone (with a warning that says why and names what is missing) when the repository
//! cannot be had. No test reaches the network: git's own `url.<base>.insteadOf` (in a
//! `GIT_CONFIG_GLOBAL` of the test's) serves GitHub and the local HTTP server's repositories
//! from bare clones of the `World` repository, and the server answers the file downloads.

use std::path::{Path, PathBuf};

use crate::add::{World, git, skill_md, write};
use crate::package::{Routes, route, serve};
use crate::{Run, skills_with};

/// A `SKILL.md` naming a script and a reference, as real skills do.
const NAMES_FILES: &str = "Run [the script](scripts/fill.py), read `references/forms.md`.";

/// The `World` repository as it is now, cloned bare to `gh/OWNER/REPO.git`, and a git
/// configuration that fetches `PREFIX/…` from `gh/…`: the repository of a page URL of
/// `PREFIX` is then this clone.
fn serve_repository_as(w: &World, prefix: &str, owner_repo: &str) -> PathBuf {
    let root = w.repo.parent().unwrap().to_path_buf();
    let bare = root.join("gh").join(format!("{owner_repo}.git"));
    std::fs::create_dir_all(bare.parent().unwrap()).unwrap();
    git(
        &root,
        &[
            "clone",
            "-q",
            "--bare",
            w.repo.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    let config = root.join("gitconfig");
    std::fs::write(
        &config,
        format!(
            "[url \"file://{}/gh/\"]\n\tinsteadOf = {prefix}\n",
            root.display()
        ),
    )
    .unwrap();
    config
}

/// `skills ARGS` in the project, with the world's home and cache, `GIT_CONFIG_GLOBAL` when
/// given, and more variables.
fn run(w: &World, config: Option<&Path>, args: &[&str], more: &[(&str, &Path)]) -> Run {
    let none = w.home.join("no-gitconfig");
    let mut env: Vec<(&str, &Path)> = vec![
        ("HOME", &w.home),
        ("SKILLS_CACHE_DIR", &w.cache),
        ("GIT_CONFIG_GLOBAL", config.unwrap_or(&none)),
        ("GIT_CONFIG_NOSYSTEM", Path::new("1")),
        // Were git to fail, the download of the file alone would not wait long.
        ("SKILLS_HTTP_TIMEOUT", Path::new("5")),
        ("COLUMNS", Path::new("400")),
    ];
    env.extend_from_slice(more);
    skills_with(&w.project, args, &env)
}

/// The files under `dir`, sorted, `/`-separated.
fn files(dir: &Path) -> Vec<String> {
    crate::add::tree(dir)
        .into_iter()
        .filter(|p| dir.join(p).is_file())
        .collect()
}

/// A page, tree or raw URL of a `SKILL.md` on GitHub installs its whole directory, fetched
/// with git at the ref the URL names (it fetched the one file, and a real skill had 18).
#[cfg(unix)]
#[test]
fn a_skill_md_url_installs_the_whole_skill_from_its_repository() {
    let w = World::new();
    // `v1` has `pdf` with its script; `main` adds a reference and names both.
    write(
        &w.repo.join("skills/pdf/SKILL.md"),
        &skill_md("pdf", &format!("Version two. {NAMES_FILES}")),
    );
    write(&w.repo.join("skills/pdf/references/forms.md"), "# Forms\n");
    w.commit("two");
    let config = serve_repository_as(&w, "https://github.com/", "o/r");

    let page = run(
        &w,
        Some(&config),
        &[
            "install",
            "https://github.com/o/r/blob/main/skills/pdf/SKILL.md",
            "--to",
            "page",
        ],
        &[],
    );
    page.assert_code(0);
    let page_dir = w.project.join("page/pdf");
    assert_eq!(
        files(&page_dir),
        ["SKILL.md", "references/forms.md", "scripts/fill.py"],
        "{}",
        page.stderr
    );
    assert!(
        std::fs::read_to_string(page_dir.join("SKILL.md"))
            .unwrap()
            .contains("Version two."),
    );
    assert!(
        page.stderr
            .contains("fetching https://github.com/o/r.git at main")
            && !page.stderr.contains("only SKILL.md"),
        "{}",
        page.stderr
    );

    // The directory's page at a tag: that tag's files.
    let tree = run(
        &w,
        Some(&config),
        &[
            "install",
            "https://github.com/o/r/tree/v1/skills/pdf",
            "--to",
            "tree",
        ],
        &[],
    );
    tree.assert_code(0);
    let tree_dir = w.project.join("tree/pdf");
    assert_eq!(files(&tree_dir), ["SKILL.md", "scripts/fill.py"]);
    assert!(
        std::fs::read_to_string(tree_dir.join("SKILL.md"))
            .unwrap()
            .contains("Version one."),
    );

    // The raw file's URL names the same repository.
    let raw = run(
        &w,
        Some(&config),
        &[
            "install",
            "https://raw.githubusercontent.com/o/r/refs/heads/main/skills/pdf/SKILL.md",
            "--to",
            "raw",
        ],
        &[],
    );
    raw.assert_code(0);
    assert_eq!(
        files(&w.project.join("raw/pdf")),
        ["SKILL.md", "references/forms.md", "scripts/fill.py"]
    );

    // `skills add` takes what `install` takes for such a URL.
    let added = run(
        &w,
        Some(&config),
        &[
            "add",
            "https://github.com/o/r/blob/main/skills/pdf/SKILL.md",
        ],
        &[],
    );
    added.assert_code(0);
    assert_eq!(
        files(&w.project.join(".agents/skills/pdf")),
        ["SKILL.md", "references/forms.md", "scripts/fill.py"],
        "{}",
        added.stderr
    );
}

/// What a browser's address bar copies has no scheme: `install` and `add` take it as the
/// URL it is (`github.com` cannot be the owner of `owner/repo`).
#[cfg(unix)]
#[test]
fn a_url_pasted_without_its_scheme_is_that_url() {
    let w = World::new();
    let config = serve_repository_as(&w, "https://github.com/", "o/r");
    let pasted = run(
        &w,
        Some(&config),
        &[
            "install",
            "github.com/o/r/tree/v1/skills/pdf",
            "--to",
            "pasted",
        ],
        &[],
    );
    pasted.assert_code(0);
    assert_eq!(
        files(&w.project.join("pasted/pdf")),
        ["SKILL.md", "scripts/fill.py"],
        "{}",
        pasted.stderr
    );
    assert!(
        pasted
            .stderr
            .contains("fetching https://github.com/o/r.git at v1"),
        "{}",
        pasted.stderr
    );
}

/// The file alone when the repository cannot be fetched (the server is no git server, or
/// there is no git), with a warning that says so and why, and names what it lacks.
#[test]
fn when_the_repository_cannot_be_fetched_the_skill_md_alone_says_why_and_what_is_missing() {
    let w = World::new();
    let names = skill_md("demo", NAMES_FILES);
    let alone = skill_md("lone", "Nothing else.");
    let mut routes = Routes::new();
    route(
        &mut routes,
        "/g/p/-/raw/main/skills/demo/SKILL.md",
        200,
        &[],
        names.as_bytes(),
    );
    route(
        &mut routes,
        "/g/p/-/raw/main/skills/lone/SKILL.md",
        200,
        &[],
        alone.as_bytes(),
    );
    let host = serve(routes);
    let url = |name: &str| format!("http://{host}/g/p/-/raw/main/skills/{name}/SKILL.md");
    let install = |name: &str, to: &str, more: &[(&str, &Path)]| {
        run(
            &w,
            None,
            &["install", &url(name), "--to", to, "--allow-host", &host],
            more,
        )
    };

    // A GitLab-shaped URL: its repository is http://HOST/g/p.git, which the server is not.
    let no_server = install("demo", "a", &[]);
    no_server.assert_code(0);
    assert_eq!(files(&w.project.join("a/demo")), ["SKILL.md"]);
    let warning = crate::unwrapped(&no_server.stderr);
    assert!(
        warning.contains(&format!(
            "warning: demo: only SKILL.md was fetched from {}: the repository could not be fetched (git failed for http://{host}/g/p.git:",
            url("demo")
        )) && warning
            .contains("; the files it names are not installed: references/forms.md, scripts/fill.py"),
        "{warning}"
    );

    // Without git.
    let empty = w.home.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let no_git = install("demo", "b", &[("PATH", &empty)]);
    no_git.assert_code(0);
    assert!(
        crate::unwrapped(&no_git.stderr).contains(
            "the repository could not be fetched (git is not installed (or not on the PATH)); the files it names are not installed: references/forms.md, scripts/fill.py"
        ),
        "{}",
        no_git.stderr
    );

    // Neither the repository nor the file: the error is the download's, and a note says
    // what git said.
    let neither = install("gone", "d", &[]);
    neither.assert_code(2);
    let text = crate::unwrapped(&neither.stderr);
    assert!(
        text.contains("HTTP 404")
            && text.contains(&format!(
                "note: the repository could not be fetched either: git failed for http://{host}/g/p.git:"
            )),
        "{text}"
    );
    assert!(!w.project.join("d").exists());

    // A SKILL.md that names no file: the skill may still have some, and they are not here.
    let lone = install("lone", "c", &[]);
    lone.assert_code(0);
    assert!(
        crate::unwrapped(&lone.stderr)
            .contains("; it names no other file, but any the skill has are not installed"),
        "{}",
        lone.stderr
    );
}

/// A skill directory that the repository makes a link out of itself (to the user's files) is
/// not copied: the file alone is downloaded, and the warning says why.
#[cfg(unix)]
#[test]
fn a_skill_directory_that_links_out_of_its_repository_is_not_copied() {
    let w = World::new();
    let outside = w.repo.parent().unwrap().join("outside");
    write(&outside.join("SKILL.md"), &skill_md("evil", "Hi."));
    write(&outside.join("secret.txt"), "secret\n");
    std::os::unix::fs::symlink(&outside, w.repo.join("skills/evil")).unwrap();
    w.commit("a link out");
    let mut routes = Routes::new();
    route(
        &mut routes,
        "/g/p/-/raw/main/skills/evil/SKILL.md",
        200,
        &[],
        skill_md("evil", "Hi.").as_bytes(),
    );
    let host = serve(routes);
    let config = serve_repository_as(&w, &format!("http://{host}/"), "g/p");
    let url = format!("http://{host}/g/p/-/raw/main/skills/evil/SKILL.md");
    let installed = run(
        &w,
        Some(&config),
        &["install", &url, "--to", "to", "--allow-host", &host],
        &[],
    );
    installed.assert_code(0);
    assert_eq!(files(&w.project.join("to/evil")), ["SKILL.md"]);
    assert!(
        crate::unwrapped(&installed.stderr).contains(&format!(
            "the repository could not be fetched (skills/evil in http://{host}/g/p.git at "
        )) && installed.stderr.contains("leads out of the repository"),
        "{}",
        installed.stderr
    );
}

/// A skill registered in a registry by the URL of a SKILL.md outside a git host: the
/// registry has that file alone; the install says so, and names what is missing.
#[test]
fn a_registry_skill_says_the_registry_serves_skill_md_alone() {
    let w = World::new();
    let body = skill_md("demo", NAMES_FILES);
    let digest = skills_core::digest::sha256_hex(body.as_bytes());
    let mut routes = Routes::new();
    route(
        &mut routes,
        "/api/skills/demo?view=summary",
        200,
        &[("Content-Type", "application/json")],
        format!("{{\"name\":\"demo\",\"hosted\":false,\"skill_md_url\":\"https://docs.example.com/demo/SKILL.md\",\"content_version\":\"{digest}\"}}").as_bytes(),
    );
    route(
        &mut routes,
        "/api/skills/demo/content",
        200,
        &[],
        body.as_bytes(),
    );
    let host = serve(routes);
    let registry = format!("http://{host}");
    let installed = run(
        &w,
        None,
        &["install", "demo", "--registry", &registry, "--to", "to"],
        &[],
    );
    installed.assert_code(0);
    assert_eq!(files(&w.project.join("to/demo")), ["SKILL.md"]);
    assert!(
        crate::unwrapped(&installed.stderr).contains(&format!(
            "warning: demo: only SKILL.md was fetched from {registry}/api/skills/demo/content: the skill is registered by the URL of its SKILL.md (https://docs.example.com/demo/SKILL.md), whose host has no repository to fetch its folder from, and the registry keeps that file alone; the files it names are not installed: references/forms.md, scripts/fill.py"
        )),
        "{}",
        installed.stderr
    );
}

/// A skill registered in a registry by the URL of its `SKILL.md` on a git host: its whole
/// folder comes from the repository, not the registry's one cached file (issue 38, item 3).
#[cfg(unix)]
#[test]
fn a_registry_skill_registered_by_a_github_url_brings_its_folder() {
    let w = World::new();
    write(
        &w.repo.join("skills/pdf/SKILL.md"),
        &skill_md("pdf", &format!("Version two. {NAMES_FILES}")),
    );
    write(&w.repo.join("skills/pdf/references/forms.md"), "# Forms\n");
    w.commit("two");
    let config = serve_repository_as(&w, "https://github.com/", "o/r");
    let mut routes = Routes::new();
    route(
        &mut routes,
        "/api/skills/pdf?view=summary",
        200,
        &[("Content-Type", "application/json")],
        br#"{"name":"pdf","hosted":false,"skill_md_url":"https://github.com/o/r/blob/main/skills/pdf/SKILL.md","content_version":"0"}"#,
    );
    let registry = format!("http://{}", serve(routes));
    let installed = run(
        &w,
        Some(&config),
        &["install", "pdf", "--registry", &registry, "--to", "to"],
        &[],
    );
    installed.assert_code(0);
    assert_eq!(
        files(&w.project.join("to/pdf")),
        ["SKILL.md", "references/forms.md", "scripts/fill.py"],
        "{}",
        installed.stderr
    );
    assert!(
        !installed.stderr.contains("only SKILL.md"),
        "{}",
        installed.stderr
    );
    // A version names nothing for a skill registered by URL.
    let versioned = run(
        &w,
        Some(&config),
        &["install", "pdf@2", "--registry", &registry, "--to", "to2"],
        &[],
    );
    versioned.assert_code(2);
    assert!(
        versioned.stderr.contains("which has no versions"),
        "{}",
        versioned.stderr
    );
}
