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
    let counter = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let handle = {
        let (c, s, what) = (counter.clone(), stop.clone(), what.to_string());
        std::thread::spawn(move || watch(&what, total, &c, &s))
    };
    let out = f(Some(counter));
    stop.store(true, Ordering::Relaxed);
    let _ = handle.join();
    out
}

fn watch(what: &str, total: u64, done: &AtomicU64, stop: &AtomicBool) {
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
            Some(b) => b.set_position(n),
            None if last.elapsed() >= Duration::from_secs(60) => {
                last = Instant::now();
                eprintln!(
                    "  {what}: {n}/{total} games after {:.0} s",
                    start.elapsed().as_secs_f64()
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
