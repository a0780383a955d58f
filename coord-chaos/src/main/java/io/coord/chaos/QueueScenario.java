package io.coord.chaos;

import io.coord.Codec;
import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.CoordTimeoutException;
import io.coord.queue.Task;
import io.coord.queue.TaskId;
import io.coord.queue.TaskQueue;
import io.coord.queue.TaskSpec;
import io.coord.test.ChildJvm;
import io.coord.test.ForkedEnsemble;
import io.coord.test.History;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;

/**
 * Chaos scenario "queue": producers in the controller enqueue tasks with idempotency keys
 * (retrying an indeterminate enqueue with the same key) while worker JVMs
 * ({@link QueueWorkerMain}) claim, report and complete them; the schedule kills workers mid-task
 * (kill -9), pauses one mid-task past its session (SIGSTOP), and kills the ensemble's leader.
 * {@link QueueChecker} then checks completion exactly once, nothing lost, only poison tasks
 * dead-lettered, every extra execution explained by a fault, and the stale claimant refused.
 */
public final class QueueScenario {
    static final int MAX_RETRIES = 2;
    static final String NAME = "queue";

    /**
     * The run's size.
     *
     * @param tasks       tasks enqueued (keys), poison ones included
     * @param poison      of those, poison tasks (dead-lettered by design)
     * @param producers   producer threads in the controller
     * @param workers     worker JVMs
     * @param kills       workers killed with kill -9 while holding a task
     * @param pauses      workers paused (SIGSTOP) while holding a task, past their session timeout
     * @param leaderKills kill -9 (then restart) of the ensemble's leader
     * @param session     the workers' session timeout
     * @param workMs      longest "work" per task in a worker
     * @param enqueueTime how long the producers spread their enqueues over
     */
    public record Params(int tasks, int poison, int producers, int workers, int kills, int pauses, int leaderKills,
                         Duration session, int workMs, Duration enqueueTime) {
        /** The short profile (part of {@code mvn verify}). */
        public static Params shortProfile() {
            return new Params(300, 3, 2, 3, 2, 1, 1, Duration.ofSeconds(2), 10, Duration.ofSeconds(10));
        }

        /** Scaled for a long run of about {@code minutes}. */
        public static Params longProfile(int minutes) {
            int m = Math.max(1, minutes);
            return new Params(2_000 * m, 10 * m, 3, 4, 6 * m, 3 * m, 2 * m, Duration.ofSeconds(2), 10, Duration.ofSeconds(50L * m));
        }

        int faults() {
            return kills + pauses + leaderKills;
        }
    }

    private final ForkedEnsemble ensemble;
    private final Params params;
    private final String run = Long.toString(System.currentTimeMillis(), 36);
    private final String queueName = "chaos-" + run;
    private final String records = "/chaos/queue-" + run + "/records";
    private final History history = new History();
    private final Book book = new Book();
    private final Map<String, Worker> workers = new LinkedHashMap<>();
    private final Random random = new Random(7);
    private int nextWorker;

    private QueueScenario(ForkedEnsemble ensemble, Params params) {
        this.ensemble = ensemble;
        this.params = params;
    }

    /** Runs the scenario against {@code ensemble} (left running for the next scenario). */
    public static ScenarioReport run(ForkedEnsemble ensemble, Params params) throws InterruptedException {
        return new QueueScenario(ensemble, params).run();
    }

    private record Worker(String name, ChildJvm jvm, ChildLines lines) {
    }

    /** What the workers told the controller, by task. */
    private static final class Book {
        final Map<String, Integer> starts = new HashMap<>();
        final Map<String, String> lastStartBy = new HashMap<>();
        final Set<String> interrupted = new HashSet<>();
        final Map<String, String> held = new HashMap<>();
        final Map<String, String> outcomes = new HashMap<>(); // "worker task" -> DONE/LOST
        final Set<String> ready = new HashSet<>();
        final List<String> errors = new ArrayList<>();
        long dones;

        synchronized void line(String worker, String line) {
            String[] f = line.split(" ");
            switch (f[0]) {
                case "READY" -> ready.add(worker);
                case "START" -> {
                    starts.merge(f[1], 1, Integer::sum);
                    lastStartBy.put(f[1], worker);
                }
                case "HELD" -> held.put(worker, f[1]);
                case "DONE" -> {
                    dones++;
                    outcomes.put(worker + " " + f[1], "DONE");
                }
                case "LOST" -> {
                    interrupted.add(f[1]);
                    outcomes.put(worker + " " + f[1], "LOST");
                }
                case "FAILED" -> {
                }
                default -> errors.add(worker + ": " + line);
            }
            notifyAll();
        }

        /** Waits (bounded) until {@code condition} holds; false on timeout. */
        synchronized boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!condition.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)));
            }
            return true;
        }
    }

    private ScenarioReport run() throws InterruptedException {
        long started = System.nanoTime();
        List<String> problems = new ArrayList<>();
        Map<String, Object> figures = new LinkedHashMap<>();
        int faults = 0;
        int staleExpected = 0;
        int staleRejected = 0;
        int staleAccepted = 0;
        Map<String, String> acked = new ConcurrentHashMap<>();
        Set<String> infoKeys = ConcurrentHashMap.newKeySet();
        Set<String> poisonKeys = new HashSet<>();
        ExecutorService producers = Executors.newFixedThreadPool(params.producers(), r -> {
            Thread t = new Thread(r, "chaos-queue-producer");
            t.setDaemon(true);
            return t;
        });
        List<CoordClient> clients = new ArrayList<>();
        try {
            CoordClient admin = connect(clients);
            admin.curator().create().creatingParentsIfNeeded().forPath(records);
            for (int i = 0; i < params.workers(); i++) {
                startWorker();
            }
            if (!book.await(Duration.ofSeconds(60), () -> book.ready.size() == params.workers())) {
                throw new IllegalStateException("workers not ready within 60 s: " + book.ready + tails());
            }

            // Producers: keys p{producer}-{i}; every (tasks/poison)-th one is poison.
            int every = params.poison() == 0 ? Integer.MAX_VALUE : params.tasks() / params.poison();
            List<List<QueueJob>> shares = new ArrayList<>();
            for (int p = 0; p < params.producers(); p++) {
                shares.add(new ArrayList<>());
            }
            for (int i = 0; i < params.tasks(); i++) {
                boolean poison = i % every == every / 2 && poisonKeys.size() < params.poison();
                QueueJob job = new QueueJob("k" + i, poison);
                if (poison) {
                    poisonKeys.add(job.key());
                }
                shares.get(i % params.producers()).add(job);
            }
            List<Future<?>> producing = new ArrayList<>();
            for (int p = 0; p < params.producers(); p++) {
                CoordClient client = connect(clients);
                List<QueueJob> share = shares.get(p);
                String process = "producer-" + p;
                producing.add(producers.submit(() -> {
                    produce(client, process, share, acked, infoKeys);
                    return null;
                }));
            }

            // The fault schedule: spread over the enqueue time, in a shuffled but seeded order.
            List<String> schedule = new ArrayList<>();
            for (int i = 0; i < params.kills(); i++) {
                schedule.add("kill");
            }
            for (int i = 0; i < params.pauses(); i++) {
                schedule.add("pause");
            }
            for (int i = 0; i < params.leaderKills(); i++) {
                schedule.add("leader");
            }
            java.util.Collections.shuffle(schedule, random);
            long gap = params.enqueueTime().toNanos() / (schedule.size() + 1);
            for (int i = 0; i < schedule.size(); i++) {
                long at = started + gap * (i + 1);
                long wait = at - System.nanoTime();
                if (wait > 0) {
                    io.coord.test.Awaits.hold(Duration.ofNanos(wait));
                }
                String fault = schedule.get(i);
                try (History.FaultWindow w = history.fault(fault)) {
                    switch (fault) {
                        case "kill" -> faults += killWorkerMidTask(problems) ? 1 : 0;
                        case "pause" -> {
                            String outcome = pauseWorkerMidTask(problems);
                            if (outcome != null) {
                                faults++;
                                staleExpected++;
                                if (outcome.equals("LOST")) {
                                    staleRejected++;
                                } else if (outcome.equals("DONE")) {
                                    staleAccepted++;
                                }
                            }
                        }
                        case "leader" -> {
                            killLeader();
                            faults++;
                        }
                        default -> throw new IllegalStateException(fault);
                    }
                }
            }
            for (Future<?> f : producing) {
                try {
                    f.get(120, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    problems.add("a producer failed: " + e);
                }
            }
            // Drain: every task completed or dead-lettered (bounded).
            CuratorFramework curator = admin.curator();
            String tasksPath = "/queues/" + queueName + "/tasks";
            long drainStart = System.nanoTime();
            boolean drained = book.await(Duration.ofSeconds(60), () -> children(curator, tasksPath) == 0);
            figures.put("drainMs", (System.nanoTime() - drainStart) / 1_000_000);
            if (!drained) {
                problems.add("the queue did not drain within 60 s: " + children(curator, tasksPath) + " tasks left");
            }

            // The evidence.
            List<QueueChecker.Completion> completions = new ArrayList<>();
            for (String r : curator.getChildren().forPath(records)) {
                String[] data = new String(curator.getData().forPath(records + "/" + r), StandardCharsets.UTF_8).split(" ");
                completions.add(new QueueChecker.Completion(r.substring(0, r.lastIndexOf('-')), data[0], Long.parseLong(data[1])));
            }
            List<QueueChecker.Dead> dead = new ArrayList<>();
            List<String> remaining = new ArrayList<>();
            try (TaskQueue<QueueJob> queue = TaskQueue.open(admin, queueName, Codec.json(QueueJob.class), QueueWorkerMain.options("controller"))) {
                for (Task<QueueJob> t : queue.deadLetters()) {
                    dead.add(new QueueChecker.Dead(t.id().name(), t.payload().key(), t.attempts()));
                }
                for (Task<QueueJob> t : queue.tasks()) {
                    remaining.add(t.id().name());
                }
            }
            QueueChecker.Verdict verdict;
            synchronized (book) {
                verdict = QueueChecker.check(new QueueChecker.Evidence(acked, infoKeys, poisonKeys, completions, dead, remaining,
                        book.starts, book.interrupted, staleExpected, staleRejected, staleAccepted, MAX_RETRIES));
                if (!book.errors.isEmpty()) {
                    figures.put("workerErrors", book.errors.size());
                }
            }
            problems.addAll(verdict.problems());
            History.Counts counts = history.counts();
            figures.put("enqueuesOk", counts.ok());
            figures.put("enqueuesInfo", counts.info());
            figures.put("completed", verdict.completed());
            figures.put("deadLettered", dead.size());
            figures.put("extraExecutions", verdict.extraExecutions());
            figures.put("staleRejected", staleRejected);
            figures.put("wallMs", (System.nanoTime() - started) / 1_000_000);
            long ops = counts.total() + completions.size();
            long violations = verdict.violations() + (drained ? 0 : 1);
            return new ScenarioReport(NAME, ops, faults, params.faults(), violations, verdict.lost(), problems, figures);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("queue scenario failed to run: " + e + tails(), e);
        } finally {
            producers.shutdownNow();
            workers.values().forEach(w -> {
                w.lines().close();
                w.jvm().close();
            });
            clients.forEach(CoordClient::close);
        }
    }

    private CoordClient connect(List<CoordClient> clients) throws InterruptedException {
        CoordClient c = CoordClient.connect(CoordSettings.builder().connectString(ensemble.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(15)).build());
        clients.add(c);
        return c;
    }

    /** Enqueues {@code share} with keys, paced over the enqueue time; an indeterminate enqueue is retried with its key. */
    private void produce(CoordClient client, String process, List<QueueJob> share, Map<String, String> acked, Set<String> infoKeys)
            throws InterruptedException {
        long pace = params.enqueueTime().toNanos() / Math.max(1, share.size());
        long start = System.nanoTime();
        try (TaskQueue<QueueJob> queue = TaskQueue.open(client, queueName, Codec.json(QueueJob.class), QueueWorkerMain.options(process))) {
            for (int i = 0; i < share.size(); i++) {
                QueueJob job = share.get(i);
                long wait = start + pace * i - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // pacing, not synchronization
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (true) {
                    History.Handle h = history.invoke(process, "enqueue", job.key());
                    try {
                        TaskId id = queue.enqueue(job, TaskSpec.defaults().idempotencyKey(job.key()));
                        h.ok(id.name());
                        acked.put(job.key(), id.name());
                        break;
                    } catch (ConnectionLostException | CoordTimeoutException e) {
                        h.info(e);
                        infoKeys.add(job.key());
                        if (System.nanoTime() > deadline) {
                            break; // stays indeterminate
                        }
                        TimeUnit.MILLISECONDS.sleep(100); // back off before the retry
                    } catch (RuntimeException e) {
                        h.failed(e);
                        if (History.classify(e) != History.Outcome.INFO || System.nanoTime() > deadline) {
                            break;
                        }
                        infoKeys.add(job.key());
                    }
                }
            }
        }
    }

    private void startWorker() {
        String name = "worker-" + nextWorker++;
        ChildJvm jvm = ChildJvm.start(QueueWorkerMain.class.getName(), ensemble.connectString(), queueName, records, name,
                Long.toString(params.session().toMillis()), Integer.toString(params.workMs()));
        workers.put(name, new Worker(name, jvm, ChildLines.start(name, jvm, (child, line, at) -> book.line(child, line))));
    }

    /** Holds the next task of a live worker, then kills it with kill -9: a worker crash certainly mid-task. */
    private boolean killWorkerMidTask(List<String> problems) throws InterruptedException {
        Worker victim = pickWorker();
        Optional<String> task = holdTask(victim);
        if (task.isEmpty()) {
            problems.add("kill: " + victim.name() + " never held a task within 20 s");
            return false;
        }
        victim.jvm().kill9();
        synchronized (book) {
            book.interrupted.add(task.get());
        }
        victim.lines().close();
        workers.remove(victim.name());
        startWorker();
        return true;
    }

    /**
     * Holds the next task of a live worker and pauses it (SIGSTOP) until another worker has started
     * the same task (its claim expired with its session), then resumes it and lets it try to
     * complete: the outcome it reports ({@code LOST} expected) is returned, null if the fault
     * could not be applied.
     */
    private String pauseWorkerMidTask(List<String> problems) throws InterruptedException {
        Worker victim = pickWorker();
        Optional<String> task = holdTask(victim);
        if (task.isEmpty()) {
            problems.add("pause: " + victim.name() + " never held a task within 20 s");
            return null;
        }
        String t = task.get();
        synchronized (book) {
            book.interrupted.add(t);
        }
        victim.jvm().pause();
        boolean reclaimed;
        try {
            // At least 2.5 session timeouts, and until another worker has the task.
            io.coord.test.Awaits.hold(Duration.ofMillis(params.session().toMillis() * 5 / 2));
            reclaimed = book.await(Duration.ofSeconds(20), () -> !victim.name().equals(book.lastStartBy.get(t)));
        } finally {
            victim.jvm().resume();
        }
        if (!reclaimed) {
            problems.add("pause: task " + t + " of paused " + victim.name() + " was not reclaimed by another worker within 20 s");
        }
        victim.jvm().send("go");
        String key = victim.name() + " " + t;
        if (!book.await(Duration.ofSeconds(20), () -> book.outcomes.containsKey(key))) {
            problems.add("pause: resumed " + victim.name() + " reported no outcome for " + t + " within 20 s");
            return "NONE";
        }
        synchronized (book) {
            return book.outcomes.get(key);
        }
    }

    private Optional<String> holdTask(Worker victim) throws InterruptedException {
        synchronized (book) {
            book.held.remove(victim.name());
        }
        victim.jvm().send("hold");
        if (!book.await(Duration.ofSeconds(20), () -> book.held.containsKey(victim.name()))) {
            return Optional.empty();
        }
        synchronized (book) {
            return Optional.of(book.held.get(victim.name()));
        }
    }

    private Worker pickWorker() {
        List<Worker> live = workers.values().stream().filter(w -> w.jvm().isAlive()).toList();
        return live.get(random.nextInt(live.size()));
    }

    /** kill -9 of the serving leader, then a bounded wait for a new one, then the old one restarts. */
    private void killLeader() {
        int leader = ensemble.awaitLeader(30_000);
        ensemble.kill9(leader);
        ensemble.awaitLeader(30_000);
        ensemble.restart(leader);
    }

    private static int children(CuratorFramework curator, String path) {
        try {
            Stat s = curator.checkExists().forPath(path);
            return s == null ? 0 : s.getNumChildren();
        } catch (Exception e) {
            return -1;
        }
    }

    private String tails() {
        StringBuilder b = new StringBuilder();
        workers.values().forEach(w -> b.append(w.jvm().stderrTail()));
        return b.toString();
    }
}
