//! `shax serve`: the JSON API and the page (the server lives in `shax-serve`),
//! and `shax bench serve`, its load generator.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use shax_core::Preset;
use shax_serve::{AppState, ServeConfig, bench, client::Client};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Where tier manifests are: <DIR>/<rules>/tiers.toml (default: $SHAX_CHECKPOINTS, ./checkpoints, the source tree's).
    #[arg(long)]
    checkpoints: Option<PathBuf>,
    /// Searches at once; 0: one per core.
    #[arg(long, default_value_t = 0)]
    workers: usize,
    /// Move requests that may wait for a worker (more get 503); default 16 per worker.
    #[arg(long)]
    queue: Option<usize>,
    /// Longest a move request may take, waiting included, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    move_timeout_ms: u64,
    /// Allow this origin to call the API from its pages (CORS), e.g. https://game.example.
    #[arg(long)]
    allow_origin: Option<String>,
    /// No log line per request.
    #[arg(long)]
    quiet: bool,
}

fn config(
    checkpoints: Option<PathBuf>,
    workers: usize,
    queue: Option<usize>,
) -> anyhow::Result<ServeConfig> {
    let mut c = ServeConfig::new();
    if workers > 0 {
        c.workers = workers;
        c.queue = 16 * workers;
    }
    if let Some(q) = queue {
        anyhow::ensure!(q <= 100_000, "--queue must be at most 100000, got {q}");
        c.queue = q;
    }
    c.checkpoints = checkpoints;
    Ok(c)
}

pub fn run(a: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        (1..=600_000).contains(&a.move_timeout_ms),
        "--move-timeout-ms must be 1 to 600000, got {}",
        a.move_timeout_ms
    );
    let mut c = config(a.checkpoints, a.workers, a.queue)?;
    c.move_timeout = Duration::from_millis(a.move_timeout_ms);
    c.allow_origin = a.allow_origin;
    c.log = !a.quiet;
    shax_serve::serve(a.addr, c)?;
    Ok(())
}

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// A running server to load (http://host:port); default: one started in this process.
    #[arg(long)]
    url: Option<String>,
    /// Rules (a preset).
    #[arg(long, default_value = "shax")]
    rules: String,
    /// The player each request asks for.
    #[arg(long, default_value = "tier:medium")]
    player: String,
    /// Concurrent clients.
    #[arg(long, default_value_t = 16)]
    clients: usize,
    /// Seconds of load.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Workers of the in-process server; 0: one per core.
    #[arg(long, default_value_t = 0)]
    workers: usize,
    /// Print one JSON object instead of a line.
    #[arg(long)]
    json: bool,
}

pub fn bench(a: BenchArgs) -> anyhow::Result<()> {
    super::bench::check_seconds(a.seconds)?;
    anyhow::ensure!(
        (1..=1024).contains(&a.clients),
        "--clients must be 1 to 1024, got {}",
        a.clients
    );
    let preset: Preset = a.rules.parse()?;
    let bodies = bench::bodies(&shax_core::Rules::preset(preset), &a.player, 256, 1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let report = rt.block_on(async {
        let url = match a.url {
            Some(u) => u,
            None => {
                let mut c = config(None, a.workers, None)?;
                c.log = false;
                let state = Arc::new(AppState::new(c)?);
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                let addr = listener.local_addr()?;
                tokio::spawn(shax_serve::serve_on(
                    listener,
                    state,
                    std::future::pending(),
                ));
                format!("http://{addr}")
            }
        };
        let client = Client::new(&url);
        let probe = client
            .post_json("/v1/move", &bodies[0])
            .await
            .with_context(|| format!("POST {url}/v1/move"))?;
        anyhow::ensure!(
            probe.status.is_success(),
            "the server refused the request: {}",
            probe.json()
        );
        anyhow::Ok(
            bench::run(
                &client,
                a.clients,
                Duration::from_secs_f64(a.seconds),
                bodies,
            )
            .await,
        )
    })?;
    if a.json {
        writeln!(super::stdout(), "{}", serde_json::to_string(&report)?)?;
    } else {
        writeln!(
            super::stdout(),
            "POST /v1/move {} ({}), {} clients, {:.1} s: {} answers ({:.1}/s), {} errors; latency p50 {:.1} ms, p99 {:.1} ms; search {:.1} ms mean",
            a.player,
            a.rules,
            report.clients,
            report.seconds,
            report.ok,
            report.requests_per_sec,
            report.errors,
            report.p50_ms,
            report.p99_ms,
            report.mean_search_ms
        )?;
    }
    Ok(())
}
