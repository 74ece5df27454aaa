//! The trainer end to end on a tiny config, through the library:
//! - `resume_after_a_kill_loses_nothing`: a run stopped after two checkpoints
//!   (with the leftovers of a kill: a half-written checkpoint folder, a shard
//!   temporary, TensorBoard values of the newest checkpoint never flushed) and
//!   resumed ends with the same step counter, every checkpoint, and one
//!   TensorBoard value per checkpoint step, no gap, no duplicate;
//! - `a_corrupt_shard_is_skipped_with_a_warning_naming_it`;
//! - `an_existing_run_dir_without_resume_is_refused`;
//! - `a_run_started_from_a_checkpoint_has_its_weights_and_shape` (`run.init`)
//!   `a_start_checkpoint_is_grown_when_the_config_asks_for_more_blocks_and_a_head` and
//!   `a_start_checkpoint_of_other_rules_or_missing_is_refused_before_any_file`;
//! - `a_worker_started_before_its_trainer_waits_then_plays_until_the_run_ends`
//!   (the start order of a Slurm array or a Kubernetes Job) and
//!   `a_worker_gives_up_after_its_wait_naming_the_run`.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use shax_train::tb::{TRAINING_TAGS, event_files, read_dir_values, read_event_file};
use shax_train::{
    Observer, RunError, RunPaths, SelfPlayOptions, TrainConfig, TrainOptions, TrainState,
    list_checkpoints, read_elo, selfplay, train,
};

struct Lines(Vec<String>);

impl Observer for Lines {
    fn line(&mut self, line: &str) {
        self.0.push(line.to_string());
    }
}

fn tiny() -> TrainConfig {
    let text = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../configs/smoke.toml"
    ))
    .unwrap();
    let mut c = TrainConfig::parse(&text, "smoke.toml").unwrap();
    c.eval.every_checkpoints = 2; // steps 20 and 40
    c.run.total_steps = 40;
    c.selfplay.workers = 1;
    c
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shax-train-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn opts(dir: &Path, resume: bool, stop_after: Option<u64>) -> TrainOptions {
    TrainOptions {
        run_dir: dir.to_path_buf(),
        config: tiny(),
        resume,
        selfplay: true,
        stop_after_checkpoints: stop_after,
    }
}

/// Cuts the event file just before the first record holding `step`.
fn drop_tb_step(file: &Path, step: i64) {
    let bytes = fs::read(file).unwrap();
    let mut at = 0;
    let mut cut = bytes.len();
    while at + 12 <= bytes.len() {
        let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
        let next = at + 16 + len;
        let probe = file.with_extension("probe");
        fs::write(&probe, &bytes[..next]).unwrap();
        let has = read_event_file(&probe)
            .unwrap()
            .values
            .iter()
            .any(|v| v.step == step);
        fs::remove_file(&probe).unwrap();
        if has {
            cut = at;
            break;
        }
        at = next;
    }
    fs::write(file, &bytes[..cut]).unwrap();
}

#[test]
fn resume_after_a_kill_loses_nothing() {
    let dir = tmp("resume");
    let stop = AtomicBool::new(false);
    let mut out = Lines(Vec::new());
    let s = train(&opts(&dir, false, Some(2)), &mut out, &stop).unwrap();
    assert_eq!(s.step, 20);
    // What a kill -9 can leave: TensorBoard values of step 20 never flushed,
    // a half-written checkpoint folder, a shard temporary.
    let files = event_files(&dir.join("tb"));
    assert_eq!(files.len(), 1);
    drop_tb_step(&files[0], 20);
    assert!(
        !read_dir_values(&dir.join("tb"))["loss/total"]
            .iter()
            .any(|&(s, _)| s == 20)
    );
    fs::create_dir_all(dir.join("checkpoints/.tmp-step-000000030-99")).unwrap();
    fs::write(
        dir.join("checkpoints/.tmp-step-000000030-99/net.bpk"),
        b"half",
    )
    .unwrap();
    fs::write(dir.join("shards/.123-half.shard.tmp99"), b"SHAX").unwrap();

    let mut out = Lines(Vec::new());
    let s = train(&opts(&dir, true, None), &mut out, &stop).unwrap();
    assert_eq!(s.step, 40, "{:?}", out.0);
    assert!(
        out.0
            .iter()
            .any(|l| l.contains("resuming") && l.contains("step 20"))
    );
    // Step 0, the evaluated ones and the newest three are kept.
    let steps: Vec<u64> = list_checkpoints(&dir).iter().map(|c| c.0).collect();
    assert_eq!(steps, [0, 20, 30, 40]);
    let state: TrainState = serde_json::from_slice(
        &fs::read(dir.join("checkpoints/step-000000040/state.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state.step, 40);
    assert_eq!(state.samples_trained, 40 * 32);
    // TensorBoard: one value per checkpoint step, no gap, no duplicate.
    let tb = read_dir_values(&dir.join("tb"));
    for tag in TRAINING_TAGS {
        let mut steps: Vec<i64> = tb[tag].iter().map(|&(s, _)| s).collect();
        steps.sort();
        assert_eq!(steps, [10, 20, 30, 40], "{tag}");
    }
    // The trainer evaluates by itself (its own `net:` players): steps 20 and
    // 40, the second also against the best so far.
    let elo = read_elo(&RunPaths::new(&dir));
    let steps: Vec<u64> = elo.iter().map(|l| l.step).collect();
    assert_eq!(steps, [20, 40]);
    assert!(elo[1].results.iter().any(|r| r.vs_best && r.games == 2));
    // The run's clock, summed over the resume: wall-clock and CPU hours.
    assert!(elo[1].hours > elo[0].hours && elo[1].cpu_hours > elo[0].cpu_hours);
    assert!(elo[0].cpu_hours > 0.0, "{:?}", elo[0]);
    for r in elo.iter().flat_map(|l| &l.results) {
        assert!(r.elo_low <= r.elo && r.elo <= r.elo_high, "{r:?}");
    }
    let mut evals: Vec<i64> = tb["eval/elo"].iter().map(|&(s, _)| s).collect();
    evals.sort();
    assert_eq!(evals, [20, 40]);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_corrupt_shard_is_skipped_with_a_warning_naming_it() {
    let dir = tmp("corrupt");
    let stop = AtomicBool::new(false);
    let mut out = Lines(Vec::new());
    train(&opts(&dir, false, Some(1)), &mut out, &stop).unwrap();
    // Damage one real shard (truncate it) and add garbage with the extension.
    let shards: Vec<PathBuf> = shax_train::list_shards(&dir.join("shards"));
    assert!(!shards.is_empty());
    let victim = &shards[0];
    let bytes = fs::read(victim).unwrap();
    fs::write(victim, &bytes[..bytes.len() / 2]).unwrap();
    let garbage = dir.join("shards/9999999999999-garbage.shard");
    fs::write(&garbage, b"not a shard at all").unwrap();
    let mut out = Lines(Vec::new());
    let s = train(&opts(&dir, true, Some(1)), &mut out, &stop).unwrap();
    assert_eq!(s.step, 20);
    for bad in [victim, &garbage] {
        let name = bad.display().to_string();
        assert!(
            out.0
                .iter()
                .any(|l| l.contains("warning") && l.contains(&name)),
            "no warning naming {name}: {:?}",
            out.0
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A run stopped by `run.hours` between due evaluations still evaluates its
/// last checkpoint, once; its newest checkpoint holds the whole time spent, so
/// resuming the finished run trains nothing and adds no second line.
#[test]
fn the_time_limit_evaluates_the_last_checkpoint() {
    let dir = tmp("timeup");
    let mut o = opts(&dir, false, None);
    o.config.eval.every_checkpoints = 1000; // never due on its own
    o.config.run.hours = 1e-5; // 36 ms: one interval, then the limit
    o.config.run.total_steps = 100_000; // the limit stops it, however fast the machine
    let mut out = Lines(Vec::new());
    let s = train(&o, &mut out, &AtomicBool::new(false)).unwrap();
    assert!(s.step > 0 && s.step < 100_000, "{s:?}");
    assert_eq!(s.evaluations, 1, "{:?}", out.0);
    let steps: Vec<u64> = read_elo(&RunPaths::new(&dir))
        .iter()
        .map(|e| e.step)
        .collect();
    assert_eq!(steps, vec![s.step]);
    assert!(
        out.0.iter().any(|l| l.contains("time limit")),
        "{:?}",
        out.0
    );
    let newest = RunPaths::new(&dir).checkpoint(s.step).state();
    let state: TrainState = serde_json::from_slice(&fs::read(newest).unwrap()).unwrap();
    assert!(state.elapsed_secs >= 0.036, "{state:?}");

    let mut out = Lines(Vec::new());
    let again = train(&opts(&dir, true, None), &mut out, &AtomicBool::new(false)).unwrap();
    assert_eq!((again.step, again.evaluations), (s.step, 0), "{:?}", out.0);
    assert_eq!(read_elo(&RunPaths::new(&dir)).len(), 1);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn an_existing_run_dir_without_resume_is_refused() {
    let dir = tmp("exists");
    fs::create_dir_all(&dir).unwrap();
    let mut out = Lines(Vec::new());
    let e = train(&opts(&dir, false, None), &mut out, &AtomicBool::new(false)).unwrap_err();
    assert!(matches!(e, RunError::Exists(_)));
    assert!(e.to_string().contains(&dir.display().to_string()));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_run_started_from_a_checkpoint_has_its_weights_and_shape() {
    let (a, b) = (tmp("init-a"), tmp("init-b"));
    let mut out = Lines(Vec::new());
    let s = train(&opts(&a, false, Some(1)), &mut out, &AtomicBool::new(false)).unwrap();
    let (step, from) = list_checkpoints(&a).pop().unwrap();
    assert_eq!(step, s.step);
    let mut o = opts(&b, false, None);
    o.config.run.init = Some(from.clone());
    o.config.model.hidden = 24; // the checkpoint's shape wins
    let mut out = Lines(Vec::new());
    // Stopped at once: only its step 0 is written.
    train(&o, &mut out, &AtomicBool::new(true)).unwrap();
    assert!(
        out.0.iter().any(|l| l.contains("from the weights of")),
        "{:?}",
        out.0
    );
    let (zero, start) = list_checkpoints(&b).pop().unwrap();
    assert_eq!(zero, 0);
    assert_eq!(
        fs::read(start.join("net.bpk")).unwrap(),
        fs::read(from.join("net.bpk")).unwrap()
    );
    let resolved = TrainConfig::load(&b.join("config.toml")).unwrap();
    assert_eq!(resolved.model, tiny().model);
    assert_eq!(resolved.run.init, Some(from.clone()));
    let _ = fs::remove_dir_all(&a);
    let _ = fs::remove_dir_all(&b);
}

/// `[model]` asking for the start checkpoint's shape with more blocks and the
/// material head gets that network grown: the same outputs at step 0, the
/// larger shape in the run's config and its checkpoints, and it trains.
#[test]
fn a_start_checkpoint_is_grown_when_the_config_asks_for_more_blocks_and_a_head() {
    let (a, b) = (tmp("deepen-a"), tmp("deepen-b"));
    let stop = AtomicBool::new(true);
    train(&opts(&a, false, None), &mut Lines(Vec::new()), &stop).unwrap();
    let (_, from) = list_checkpoints(&a).pop().unwrap();
    let mut o = opts(&b, false, Some(1));
    o.config.run.init = Some(from.clone());
    o.config.model.blocks = tiny().model.blocks + 2;
    o.config.model.material_head = true;
    let mut out = Lines(Vec::new());
    train(&o, &mut out, &AtomicBool::new(false)).unwrap();
    let blocks = format!(" x {},", o.config.model.blocks);
    assert!(
        out.0
            .iter()
            .any(|l| l.contains("from the weights of") && l.contains(&blocks)),
        "{:?}",
        out.0
    );
    let resolved = TrainConfig::load(&b.join("config.toml")).unwrap();
    assert_eq!(resolved.model, o.config.model);
    let checkpoints = list_checkpoints(&b);
    assert!(checkpoints.len() >= 2, "it trained: {checkpoints:?}");
    let position = shax_core::Position::new(o.config.rules);
    let outputs = |dir: &Path| {
        let device = shax_nn::Backend::Cpu.device();
        let ck = shax_nn::load_checkpoint(&dir.join("net.bpk"), None, &device).unwrap();
        assert_eq!(ck.net.has_material_head(), dir != from.as_path());
        let mut eval = shax_nn::NetEvaluator::new(ck.net, device);
        let mut all = vec![0.0; shax_core::POLICY_SIZE + 1];
        let (logits, value) = all.split_at_mut(shax_core::POLICY_SIZE);
        shax_search::Evaluator::evaluate(&mut eval, &[position], logits, value);
        all
    };
    let zero = outputs(&checkpoints[0].1);
    let last = outputs(&checkpoints.last().unwrap().1);
    let before = outputs(&from);
    assert!(before.iter().zip(&zero).all(|(x, y)| (x - y).abs() < 1e-5));
    assert!(zero.iter().zip(&last).any(|(x, y)| (x - y).abs() > 1e-4));
    let _ = fs::remove_dir_all(&a);
    let _ = fs::remove_dir_all(&b);
}

#[test]
fn a_start_checkpoint_of_other_rules_or_missing_is_refused_before_any_file() {
    let (a, b) = (tmp("init-rules-a"), tmp("init-rules-b"));
    let stop = AtomicBool::new(true);
    train(&opts(&a, false, None), &mut Lines(Vec::new()), &stop).unwrap();
    let (_, shax) = list_checkpoints(&a).pop().unwrap();
    let mut o = opts(&b, false, None);
    o.config.rules = shax_core::Rules::load("nine-mens-morris").unwrap();
    o.config.run.init = Some(shax);
    let e = train(&o, &mut Lines(Vec::new()), &stop).unwrap_err();
    assert!(matches!(e, RunError::Init { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("run.init") && msg.contains("nine-mens-morris"),
        "{msg}"
    );
    assert!(!b.exists(), "a refused run leaves no directory");
    o.config.run.init = Some(a.join("no-such.bpk"));
    let e = train(&o, &mut Lines(Vec::new()), &stop).unwrap_err();
    assert!(e.to_string().contains("no-such"), "{e}");
    assert!(!b.exists());
    let _ = fs::remove_dir_all(&a);
}

#[test]
fn every_shipped_config_parses_and_comments_every_key() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs"));
    let mut n = 0;
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let c = TrainConfig::load(&p).unwrap_or_else(|e| panic!("{e}"));
        assert!(c.run.total_steps > 0);
        // Every key line is preceded by a comment line.
        let text = fs::read_to_string(&p).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            if l.contains(" = ") && !l.starts_with('#') {
                assert!(
                    i > 0 && lines[i - 1].starts_with('#'),
                    "{}: `{l}` has no comment above it",
                    p.display()
                );
            }
        }
        n += 1;
    }
    assert!(n >= 6, "expected smoke, shax, three presets and gpu");
}

/// A fixed batch: positions along a game, uniform policy targets, alternating values.
fn fixed_batch() -> shax_train::Batch {
    use rand::SeedableRng;
    let rules = shax_core::Rules::default();
    let mut game = shax_core::Game::new(rules);
    let mut examples = Vec::new();
    for ply in 0..24 {
        let legal = game.legal_actions();
        let p = 1.0 / legal.len() as f32;
        examples.push(shax_train::Example {
            position: *game.position(),
            policy: legal.iter().map(|a| (a.policy_index() as u16, p)).collect(),
            value: if ply % 2 == 0 { 1.0 } else { -1.0 },
            search_value: 0.0,
            material: [0.0; 2],
        });
        game.play(legal[(ply * 5) % legal.len()]).unwrap();
    }
    let refs: Vec<&shax_train::Example> = examples.iter().collect();
    shax_train::Augmenter::new().batch(&refs, &mut rand::rngs::SmallRng::seed_from_u64(1))
}

/// With the material head a step reports the head's loss, the total counts
/// it at `train.material_weight`, and training on a fixed batch learns the
/// targets; without the head there is no such loss.
#[test]
fn the_material_head_learns_its_targets() {
    use shax_nn::Backend;
    use shax_train::Trainer;
    let mut cfg = tiny();
    cfg.train.lr = 1e-2;
    let model = cfg.model.clone().with_material_head(true);
    let mut batch = fixed_batch();
    // Positions alternate the player to act: +0.5 for one, -0.25 for the other.
    batch.material = (0..batch.len)
        .flat_map(|row| [if row % 2 == 0 { 0.5 } else { -0.25 }; 2])
        .collect();
    let mut t = Trainer::new(&model, &cfg.train, 100, Backend::Cpu, 3);
    let first = t.train_step(&batch).unwrap();
    let m0 = first.material.expect("the head's loss");
    let weighted = first.policy + first.value + m0 * cfg.train.material_weight as f32;
    assert!((first.total - weighted).abs() < 1e-4, "{first:?}");
    let mut last = m0;
    for _ in 0..50 {
        last = t.train_step(&batch).unwrap().material.unwrap();
    }
    assert!(last < 0.5 * m0, "material loss {m0} -> {last}");
    let mut plain = Trainer::new(&cfg.model, &cfg.train, 100, Backend::Cpu, 3);
    assert_eq!(plain.train_step(&batch).unwrap().material, None);
}

#[test]
fn optimizer_state_survives_a_checkpoint() {
    use shax_nn::{Backend, CheckpointMeta, load_checkpoint, save_checkpoint};
    use shax_train::Trainer;
    let cfg = tiny();
    let rules = cfg.rules;
    let batch = fixed_batch();
    let mut a = Trainer::new(&cfg.model, &cfg.train, 100, Backend::Cpu, 3);
    for _ in 0..3 {
        a.train_step(&batch).unwrap();
    }
    let dir = tmp("optim");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("net.bpk");
    let meta = CheckpointMeta {
        model: cfg.model.clone(),
        rules,
        step: 3,
        created_unix: 0,
    };
    save_checkpoint(&path, a.network(), &meta).unwrap();
    let state = a.optimizer_bytes().unwrap();
    let fresh_state = Trainer::new(&cfg.model, &cfg.train, 100, Backend::Cpu, 9)
        .optimizer_bytes()
        .unwrap();
    let resume = |bytes: Vec<u8>| {
        let ck = load_checkpoint(&path, Some(&rules), &Backend::Cpu.training_device()).unwrap();
        Trainer::resume(&cfg.model, &cfg.train, 100, Backend::Cpu, ck.net, bytes, 3).unwrap()
    };
    let mut b = resume(state);
    let mut c = resume(fresh_state);
    assert_eq!(b.step, 3);
    assert!((b.lr() - a.lr()).abs() < 1e-12);
    // Two more steps: the second's loss depends on the first update, which
    // depends on Adam's moments.
    let mut la = 0.0;
    let mut lb = 0.0;
    let mut lc = 0.0;
    for _ in 0..2 {
        la = a.train_step(&batch).unwrap().total;
        lb = b.train_step(&batch).unwrap().total;
        lc = c.train_step(&batch).unwrap().total;
    }
    assert!((la - lb).abs() < 1e-5, "resumed {lb} vs uninterrupted {la}");
    assert!(
        (la - lc).abs() > 1e-4,
        "a fresh optimizer should differ: {lc} vs {la}"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_worker_started_before_its_trainer_waits_then_plays_until_the_run_ends() {
    let dir = tmp("start-order");
    let worker = {
        let dir = dir.clone();
        std::thread::spawn(move || {
            let o = SelfPlayOptions {
                run_dir: dir,
                workers: Some(1),
                shard_positions: 50,
                max_positions: None,
                seed: 1,
                wait: Some(Duration::from_secs(120)),
            };
            let mut out = Lines(Vec::new());
            let r = selfplay(&o, &mut out, &AtomicBool::new(false));
            (r, out.0)
        })
    };
    // The worker is up (and waiting) before the run exists.
    std::thread::sleep(Duration::from_millis(1500));
    let mut o = opts(&dir, false, None);
    o.selfplay = false;
    o.config.run.total_steps = 20;
    let mut out = Lines(Vec::new());
    let s = train(&o, &mut out, &AtomicBool::new(false)).unwrap();
    assert_eq!(s.step, 20);
    assert!(s.external_selfplay && s.selfplay_positions_per_sec > 0.0);
    let (r, lines) = worker.join().unwrap();
    let stats = r.unwrap();
    assert!(stats.positions > 0, "{lines:?}");
    assert!(lines[0].contains("waiting for the run"), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("reached its last step")));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_worker_gives_up_after_its_wait_naming_the_run() {
    let dir = tmp("never");
    let o = SelfPlayOptions {
        run_dir: dir.clone(),
        workers: Some(1),
        shard_positions: 50,
        max_positions: None,
        seed: 1,
        wait: Some(Duration::from_millis(300)),
    };
    let e = selfplay(&o, &mut Lines(Vec::new()), &AtomicBool::new(false)).unwrap_err();
    assert!(matches!(e, RunError::NotARun(..)));
    assert!(e.to_string().contains(&dir.display().to_string()), "{e}");
    assert!(e.to_string().contains("--wait"), "{e}");
}
