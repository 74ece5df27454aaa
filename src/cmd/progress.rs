//! Progress of long matches: a bar on a terminal, otherwise a line a minute.

use std::io::IsTerminal as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// Watches a game counter from a thread until dropped.
pub struct Progress {
    counter: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts watching `total` games, labelled `what`.
    pub fn new(what: &str, total: u64) -> Progress {
        let counter = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s, what) = (counter.clone(), stop.clone(), what.to_string());
        let handle = std::thread::spawn(move || watch(&what, total, &c, &s));
        Progress {
            counter,
            stop,
            handle: Some(handle),
        }
    }

    /// The counter to hand to an arena or ladder configuration.
    pub fn counter(&self) -> Option<Arc<AtomicU64>> {
        Some(self.counter.clone())
    }
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

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}
