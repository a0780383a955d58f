package io.coord.cli.demo;

import io.coord.cli.demo.DemoResult.Leader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the controller knows of the run, from the workers' events and ledger requests: who is up,
 * who leads, what each applied, which tasks are done. Every worker's reader thread reports here;
 * the controller's main thread waits here ({@link #await}) for the next step of its script.
 * Everything is guarded by this object's monitor, but for the {@link ClaimGate}, which has its
 * own (taken inside this one, never the other way round).
 */
final class RunState implements WorkerProcess.Sink {
    /** One worker as the controller sees it. */
    static final class Worker {
        final String name;
        final WorkerProcess process;
        long timeoutMs = -1;
        String session;
        final List<Long> configVersions = new ArrayList<>();
        boolean ready;
        boolean killed;
        boolean paused;
        boolean bye;
        boolean ended;
        Long holding;
        String stallToken;
        boolean rejected;
        int done;

        Worker(String name, WorkerProcess process) {
            this.name = name;
            this.process = process;
        }

        boolean live() {
            return !killed && !ended;
        }
    }

    private final Narrator say;
    private final Ledger ledger;
    private final ClaimGate gate = new ClaimGate();
    private final Map<String, Worker> workers = new LinkedHashMap<>();
    private final List<Leader> leaders = new ArrayList<>();
    private final Map<String, Integer> barriers = new HashMap<>();
    private final Map<Long, Integer> completions = new HashMap<>();
    private final List<Integer> filledWaves = new ArrayList<>();
    private final List<String> workerFailures = new ArrayList<>();
    private int retries;
    private boolean allFilled;
    private long configVersion;

    RunState(Narrator say, Ledger ledger) {
        this.say = say;
        this.ledger = ledger;
    }

    synchronized void add(Worker worker) {
        workers.put(worker.name, worker);
    }

    @Override
    public void onEvent(WorkerProcess process, String kind, Map<String, String> f) {
        String who = process.name();
        synchronized (this) {
            Worker w = workers.get(who);
            if (w == null) {
                return; // a line that raced the registration of its worker: only HELLO can, and it is repeated below
            }
            switch (kind) {
                case "HELLO" -> {
                    w.timeoutMs = Long.parseLong(f.get("timeout"));
                    w.session = f.get("session");
                }
                case "CONFIG" -> {
                    long version = Long.parseLong(f.get("version"));
                    w.configVersions.add(version);
                    if (!w.ready) {
                        w.ready = true;
                        say.event(who + " is up: pid " + process.pid() + ", session " + w.session + " (" + w.timeoutMs
                                + " ms), joined " + DemoLayout.GROUP + ", registered " + DemoLayout.SERVICE
                                + ", batch.size=" + f.get("value") + " (v" + version + ")");
                    } else {
                        say.event(who + " hot-reloads batch.size=" + f.get("value") + " (v" + version + ")");
                    }
                }
                case "LEADER" -> {
                    long epoch = Long.decode(f.get("epoch"));
                    Leader previous = leaders.isEmpty() ? null : leaders.get(leaders.size() - 1);
                    if (previous != null && previous.epoch() == epoch) {
                        break; // the same leadership, back after an UNCERTAIN spell: its task runs again
                    }
                    leaders.add(new Leader(who, epoch));
                    say.event(who + " is elected coordinator, epoch " + f.get("epoch")
                            + (previous == null ? "" : " (" + previous.worker() + " had " + DemoLayout.hex(previous.epoch()) + ")"));
                }
                case "JOB" -> say.event(who + " starts job " + f.get("job") + " (id from SequenceIds) with " + f.get("waves") + " waves");
                case "RESUME" -> say.event(who + " takes over job " + f.get("job") + ": " + f.get("filled") + " of "
                        + f.get("waves") + " waves already in the queue");
                case "FILLED" -> {
                    filledWaves.add(Integer.parseInt(f.get("wave")));
                    say.event(who + " fills wave " + f.get("wave") + ": " + f.get("tasks") + " tasks, ids " + f.get("first") + ".."
                            + f.get("last") + " (BlockIds), enqueued in one transaction");
                }
                case "ALL_FILLED" -> allFilled = true;
                case "BARRIER" -> {
                    String key = f.get("name") + " " + f.get("phase");
                    int count = barriers.merge(key, 1, Integer::sum);
                    int parties = Integer.parseInt(f.get("parties"));
                    if (count == parties) {
                        say.event("barrier " + f.get("name") + ": all " + parties + " " + f.get("phase") + " (generation "
                                + f.get("generation") + ")");
                    }
                }
                case "RETRY" -> {
                    String[] again = f.get("tasks").split(",");
                    retries += again.length;
                    say.event(who + " claims " + (again.length == 1 ? "a task" : again.length + " tasks") + " again: "
                            + String.join(", ", java.util.Arrays.stream(again).map(t -> "task " + t.replace(":", " (delivery ") + ")").toList()));
                }
                case "CLAIMED" -> gate.claimed(who);
                case "HOLDING" -> {
                    w.holding = Long.parseLong(f.get("task"));
                    gate.reached(who);
                }
                case "STALL" -> {
                    w.stallToken = f.get("token");
                    gate.reached(who);
                }
                case "REJECTED" -> {
                    w.rejected = true;
                    say.event(who + "'s write for task " + f.get("task") + " with token " + f.get("token")
                            + " is REJECTED by the ledger's fence (" + f.get("answer").replace('_', ' ') + ")");
                }
                case "ABANDONED" -> say.event(who + " drops its batch of " + f.get("tasks") + " (" + f.get("reason")
                        + "): its claims go back to the queue");
                case "DONE" -> {
                    completions.merge(Long.parseLong(f.get("task")), 1, Integer::sum);
                    w.done++;
                }
                case "SESSION" -> say.event(who + " has a new session " + f.get("session") + " (its old one expired)");
                case "REJOINED" -> say.event(who + " rejoins " + DemoLayout.GROUP + " on session " + f.get("session"));
                case "BYE" -> w.bye = true;
                case "FAILED", "PROTOCOL" -> {
                    workerFailures.add(who + ": " + f);
                    say.event(who + " FAILED: " + f);
                }
                default -> {
                    // JOINED, REGISTERED: folded into the "is up" line
                }
            }
            notifyAll();
        }
    }

    @Override
    public String onRequest(WorkerProcess process, String request, Map<String, String> f) {
        String answer;
        if (request.equals("CLAIM")) {
            answer = gate.answer(process.name(), Integer.parseInt(f.get("max")));
        } else if (request.equals("READ")) {
            answer = Long.toString(ledger.balance());
        } else if (request.equals("WRITE")) {
            long task = Long.parseLong(f.get("task"));
            boolean ok = ledger.write(process.name(), task, Long.parseLong(f.get("balance")), Long.decode(f.get("token")), f.get("node"));
            answer = ok ? "ok" : "stale: highest_accepted_token_is_" + DemoLayout.hex(ledger.highestToken());
        } else {
            answer = "error unknown request " + request;
        }
        synchronized (this) {
            notifyAll();
        }
        return answer;
    }

    @Override
    public synchronized void onEnd(WorkerProcess process) {
        Worker w = workers.get(process.name());
        if (w != null) {
            w.ended = true;
        }
        notifyAll();
    }

    /**
     * Waits until {@code probe} gives a value (not null), at most {@code bound}; re-evaluated after
     * every event and at least every 200 ms. Fails with {@link DemoFailure} naming {@code what}.
     */
    synchronized <T> T await(String what, Duration bound, Supplier<T> probe) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            T value = probe.get();
            if (value != null) {
                return value;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new DemoFailure(what + " did not happen within " + bound.toSeconds() + " s");
            }
            wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
        }
    }

    /** Who may claim tasks (its own monitor: the workers' claim requests do not wait for this one). */
    ClaimGate gate() {
        return gate;
    }

    synchronized Worker worker(String name) {
        return Objects.requireNonNull(workers.get(name), name);
    }

    /** Whether {@code name} said goodbye (it is leaving on its own, not failing). */
    synchronized boolean finished(String name) {
        Worker w = workers.get(name);
        return w != null && w.bye;
    }

    synchronized List<Worker> workers() {
        return List.copyOf(workers.values());
    }

    synchronized List<Worker> live() {
        return workers.values().stream().filter(Worker::live).toList();
    }

    synchronized List<Leader> leaders() {
        return List.copyOf(leaders);
    }

    /** The latest coordinator, if it is still alive. */
    synchronized Worker coordinator() {
        if (leaders.isEmpty()) {
            return null;
        }
        Worker w = workers.get(leaders.get(leaders.size() - 1).worker());
        return w.live() ? w : null;
    }

    synchronized int barrierCount(String name, String phase) {
        return barriers.getOrDefault(name + " " + phase, 0);
    }

    synchronized Map<Long, Integer> completions() {
        return Map.copyOf(completions);
    }

    synchronized List<Integer> filledWaves() {
        return List.copyOf(filledWaves);
    }

    synchronized boolean allFilled() {
        return allFilled;
    }

    /** The admin published {@code batch.size} as {@code version}: every worker that finishes must run it. */
    synchronized void configPublished(long version) {
        configVersion = version;
    }

    synchronized long configVersion() {
        return configVersion;
    }

    synchronized int retries() {
        return retries;
    }

    synchronized List<String> workerFailures() {
        return List.copyOf(workerFailures);
    }

    /** Applies {@code change} to a worker's record and wakes the waiters. */
    synchronized void mark(Runnable change) {
        change.run();
        notifyAll();
    }

    /** The progress line. */
    synchronized String progress(int planned) {
        int done = completions.size();
        int width = 24;
        int filled = planned == 0 ? 0 : Math.min(width, done * width / planned);
        return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "] " + done + "/" + planned + " tasks done, ledger "
                + ledger.balance() + ", " + ledger.rejections().size() + " fenced, " + retries + " retried, "
                + live().size() + (live().size() == 1 ? " worker" : " workers") + " up";
    }
}
