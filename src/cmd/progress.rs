//! Progress of long matches: a bar on a terminal, otherwise a line a minute.

use std::io::IsTerminal as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// Runs `f` with a counter of finished games to hand to an arena or ladder
/// configuration, and shows its progress over `total` games, labelled
/// `what`, until `f` returns.
pub fn with_progress<T>(what: &str, total: u64, f: impl FnOnce(Option<Arc<AtomicU64>>) -> T) -> T {
    watched(what, total, None, f)
}

/// As [`with_progress`], with player A's running score beside the count:
/// `half_points` holds A's points so far in halves (a win 2, a draw 1),
/// counted before each game is.
pub fn with_scored_progress<T>(
    what: &str,
    total: u64,
    half_points: Arc<AtomicU64>,
    f: impl FnOnce(Option<Arc<AtomicU64>>) -> T,
) -> T {
    watched(what, total, Some(half_points), f)
}

fn watched<T>(
    what: &str,
    total: u64,
    half_points: Option<Arc<AtomicU64>>,
    f: impl FnOnce(Option<Arc<AtomicU64>>) -> T,
) -> T {
    let counter = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let handle = {
        let (c, s, what) = (counter.clone(), stop.clone(), what.to_string());
        std::thread::spawn(move || watch(&what, total, &c, half_points.as_deref(), &s))
    };
    let out = f(Some(counter));
    stop.store(true, Ordering::Relaxed);
    let _ = handle.join();
    out
}

/// `, A 57.5%` once a game is done and a score is kept; empty otherwise.
fn score_text(games: u64, half_points: Option<&AtomicU64>) -> String {
    match half_points {
        Some(h) if games > 0 => {
            let points = h.load(Ordering::Relaxed) as f64 / 2.0;
            format!(", A {:.1}%", 100.0 * points / games as f64)
        }
        _ => String::new(),
    }
}

fn watch(
    what: &str,
    total: u64,
    done: &AtomicU64,
    half_points: Option<&AtomicU64>,
    stop: &AtomicBool,
) {
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = ProgressBar::new(total);
        b.set_style(
            ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} games, {per_sec}, eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_message(what.to_string());
        b
    });
    let start = Instant::now();
    let mut last = start;
    while !stop.load(Ordering::Relaxed) {
        let n = done.load(Ordering::Relaxed);
        match &bar {
            Some(b) => {
                b.set_position(n);
                b.set_message(format!("{what}{}", score_text(n, half_points)));
            }
            None if last.elapsed() >= Duration::from_secs(60) => {
                last = Instant::now();
                eprintln!(
                    "  {what}: {n}/{total} games after {:.0} s{}",
                    start.elapsed().as_secs_f64(),
                    score_text(n, half_points)
                );
            }
            None => {}
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_score_counts_half_points_once_a_game_is_done() {
        let h = AtomicU64::new(5);
        assert_eq!(score_text(4, Some(&h)), ", A 62.5%");
        assert_eq!(score_text(0, Some(&h)), "");
        assert_eq!(score_text(4, None), "");
    }
}
