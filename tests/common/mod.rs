//! What the end-to-end tests share: running the `shax` binary.

use std::process::Command;

/// Runs `shax` with `args`: exit code, stdout, stderr.
pub fn shax(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shax"))
        .args(args)
        .output()
        .expect("run shax");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A path for `name` in this test process's own folder for `suite` (created)
/// under the system's temporary directory.
pub fn tmp_file(suite: &str, name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("shax-{suite}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).display().to_string()
}
