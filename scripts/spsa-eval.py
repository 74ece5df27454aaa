#!/usr/bin/env python3
"""Tune alpha-beta's mill evaluation by self-play matches (SPSA, as fishtest does).

Each iteration draws a random sign per weight, plays the weights moved up by that
sign against the weights moved down (`shax arena`, both sides `alphabeta:nodes=N`
with a weights file as `eval=`), and moves the weights along the signs by the
difference in wins. The schedules are fishtest's: c_k = c_end * (N/(k+1))^0.101,
a_k = r_end * c_end^2 * ((A+N)/(A+k+1))^0.602 with A = N/10; c_end is a fifth of a
weight's start (at least 2; 4 for a weight of 0).

The run is resumable: DIR/state.json is replaced atomically after every
iteration, so `spsa-eval.py DIR` after a kill goes on where it stopped, with the
run's own settings (only --threads and --shax may change). DIR/log.jsonl has each
iteration's result and weights, DIR/records.jsonl the last iteration's games;
DIR/final.toml is written at the end, a weights file for
`alphabeta:...,eval=DIR/final.toml`.

  scripts/spsa-eval.py DIR --start START.toml --rules shax --nodes 25000 --iters 3600

START.toml: `name = value` lines for the weights to tune (the names of `shax
tune-eval`'s files; the preset's values are in crates/shax-search/src/eval/weights.rs).
Leave `piece` out: it is the scale (100).
"""
import argparse, json, os, random, subprocess, sys, time, tomllib


def c_end(v):
    return 4.0 if v == 0 else max(2.0, 0.2 * abs(v))


def replace_file(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def weights_text(theta):
    return "".join(f"{k} = {int(round(v))}\n" for k, v in theta.items())


def play(a, k, plus_f, minus_f):
    """Plays one iteration's games; returns (wins of plus, draws, wins of minus)."""
    spec = f"alphabeta:nodes={a.nodes},eval="
    out = subprocess.run(
        [a.shax, "arena", "--rules", a.rules, "--a", spec + plus_f, "--b", spec + minus_f,
         "--games", str(a.games), "--threads", str(a.threads), "--seed", str(k),
         "--json", "--out", os.path.join(a.dir, "records.jsonl")],
        capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"spsa-eval: shax arena failed at iteration {k}:\n{out.stderr}")
    res = json.loads(out.stdout)
    return res["a_wins"], res["draws"], res["b_wins"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="state, log and result folder (resumes if it has a state)")
    ap.add_argument("--start", help="weights file with the weights to tune and their start")
    ap.add_argument("--rules", default="shax", help="preset or rules file (default shax)")
    ap.add_argument("--nodes", type=int, default=25000, help="alpha-beta nodes a decision")
    ap.add_argument("--iters", type=int, default=3600, help="iterations (N)")
    ap.add_argument("--games", type=int, default=4, help="games an iteration (pairs of colours)")
    ap.add_argument("--threads", type=int, default=2, help="arena threads")
    ap.add_argument("--r-end", type=float, default=0.01, help="final step, a_end / c_end^2")
    ap.add_argument("--shax", default="target/release/shax", help="the shax binary")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    state_path = os.path.join(a.dir, "state.json")
    if os.path.exists(state_path):
        with open(state_path) as f:
            state = json.load(f)
        for key in ("rules", "nodes", "iters", "games", "r_end"):  # the run's own settings
            setattr(a, key, state["args"][key])
    elif a.start is None:
        sys.exit(f"spsa-eval: {a.dir} has no state.json; give --start")
    else:
        with open(a.start, "rb") as f:
            start = tomllib.load(f)
        bad = [k for k, v in start.items() if not isinstance(v, int)]
        if bad:
            sys.exit(f"spsa-eval: {a.start}: not integers: {', '.join(bad)}")
        state = {"k": 0, "theta": {k: float(v) for k, v in start.items()},
                 "start": start, "args": vars(a), "games": 0}
    n, big_a = a.iters, 0.1 * a.iters
    cend = {p: c_end(v) for p, v in state["start"].items()}
    plus_f, minus_f = os.path.join(a.dir, "plus.toml"), os.path.join(a.dir, "minus.toml")
    t0 = time.time()
    with open(os.path.join(a.dir, "log.jsonl"), "a") as log:
        while state["k"] < n:
            k, theta = state["k"], state["theta"]
            rng = random.Random(1000003 * k + 17)
            delta = {p: rng.choice((-1, 1)) for p in theta}
            ck = {p: cend[p] * (n / (k + 1)) ** 0.101 for p in theta}
            replace_file(plus_f, weights_text({p: theta[p] + ck[p] * delta[p] for p in theta}))
            replace_file(minus_f, weights_text({p: theta[p] - ck[p] * delta[p] for p in theta}))
            wins, draws, losses = play(a, k, plus_f, minus_f)
            r = wins - losses
            for p in theta:
                ak = a.r_end * cend[p] ** 2 * ((big_a + n) / (big_a + k + 1)) ** 0.602
                theta[p] += ak / ck[p] * r * delta[p]
            state["k"], state["games"] = k + 1, state["games"] + a.games
            replace_file(state_path, json.dumps(state, indent=1))
            log.write(json.dumps({"k": k, "w": wins, "d": draws, "l": losses,
                                  "t": round(time.time() - t0, 1),
                                  "theta": {p: round(v, 2) for p, v in theta.items()}}) + "\n")
            log.flush()
            if k % 100 == 99:
                print(f"spsa-eval: {k + 1}/{n} iterations, {state['games']} games", flush=True)
    replace_file(os.path.join(a.dir, "final.toml"), weights_text(state["theta"]))
    print(f"spsa-eval: done; weights in {os.path.join(a.dir, 'final.toml')}")


if __name__ == "__main__":
    main()
