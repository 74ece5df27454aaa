//! One module per subcommand.

pub mod analyse;
pub mod arena;
pub mod bench;
pub mod bench_ab;
pub mod bench_mcts;
pub mod bench_train;
pub mod bench_uct;
pub mod compare;
pub mod ladder;
pub mod r#match;
pub mod net;
pub mod partial;
pub mod perft;
pub mod play;
pub mod players;
pub mod progress;
pub mod serve;
pub mod tiers;
pub mod train;
pub mod tune;

/// Standard output, locked, for a command's report. Write to it with
/// `writeln!(out, ...)?`, not `println!`: a reader that stops early (`| head`)
/// then ends the command with a broken-pipe error, which `main` takes for
/// success, where `println!` would panic.
pub fn stdout() -> std::io::StdoutLock<'static> {
    std::io::stdout().lock()
}

/// The UTC time now for a file name: `2026-11-30T13-15-02Z` (no `:`, which
/// some file systems refuse), with milliseconds (`...02.123Z`) when `millis`.
pub fn utc_stamp(millis: bool) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut s = shax_nn::utc_string(now.as_secs()).replace(':', "-");
    if millis {
        s.pop();
        s.push_str(&format!(".{:03}Z", now.subsec_millis()));
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_stamps_are_readable_utc_without_colons() {
        let s = super::utc_stamp(true);
        // 2026-11-30T13-15-02.123Z
        assert_eq!(s.len(), 24, "{s}");
        assert!(
            !s.contains(':') && s.ends_with('Z') && s.as_bytes()[10] == b'T',
            "{s}"
        );
        assert_eq!(super::utc_stamp(false).len(), 20);
    }
}
