//! Prints `bench_nn` for a network shape:
//! `bench_nn [hidden] [blocks] [seconds] [--no-norm] [--batches=1,8,32] [--json]`.
//! What `shax bench nn` shows, without the CLI; used to choose the default shape.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let nums: Vec<f64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    // (flags such as --batches=... do not parse as numbers)
    let mut config = shax_nn::ModelConfig::new();
    if let Some(&h) = nums.first() {
        config.hidden = h as usize;
    }
    if let Some(&b) = nums.get(1) {
        config.blocks = b as usize;
    }
    config.layer_norm = !args.iter().any(|a| a == "--no-norm");
    let seconds = nums.get(2).copied().unwrap_or(1.0);
    let batches: Vec<usize> = args
        .iter()
        .find_map(|a| a.strip_prefix("--batches="))
        .map(|list| list.split(',').filter_map(|b| b.parse().ok()).collect())
        .unwrap_or_else(|| shax_nn::DEFAULT_BENCH_BATCHES.to_vec());
    match shax_nn::bench_nn(&config, shax_nn::Backend::Cpu, &batches, seconds) {
        Ok(report) if json => println!("{}", serde_json::to_string_pretty(&report).unwrap()),
        Ok(report) => print!("{report}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
