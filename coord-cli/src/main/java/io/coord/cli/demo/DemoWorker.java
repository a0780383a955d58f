package io.coord.cli.demo;

import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordSettings;
import io.coord.barrier.BarrierOptions;
import io.coord.barrier.BarrierSeat;
import io.coord.barrier.DoubleBarrier;
import io.coord.cli.demo.Job.Payload;
import io.coord.config.ConfigListener;
import io.coord.config.ConfigOptions;
import io.coord.config.LiveConfig;
import io.coord.config.Versioned;
import io.coord.election.Election;
import io.coord.election.ElectionOptions;
import io.coord.lock.DistributedLock;
import io.coord.lock.LockLease;
import io.coord.lock.LockOptions;
import io.coord.lock.Locks;
import io.coord.membership.Group;
import io.coord.membership.Membership;
import io.coord.naming.Discovery;
import io.coord.naming.Endpoint;
import io.coord.queue.QueueOptions;
import io.coord.queue.TaskClaim;
import io.coord.queue.TaskQueue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * One worker of {@code coord demo}: a separate JVM, driven by the controller over its stdin and
 * stdout ({@link Wire}). It uses every recipe the way a batch worker would:
 * <ol>
 *   <li>joins the group {@value DemoLayout#GROUP} and registers an instance of
 *       {@value DemoLayout#SERVICE};
 *   <li>hot-reloads {@code batch.size} ({@link LiveConfig});
 *   <li>stands for coordinator ({@link Election}; the leader runs {@link Coordinator});
 *   <li>meets the others at the start barrier, then claims up to {@code batch.size} tasks at a
 *       time, and applies them to the controller's ledger under the ledger lock, each write
 *       carrying the lock's fencing token, each completion creating the task's done marker in
 *       the same transaction;
 *   <li>when the controller says the job is done, leaves through the finish barrier.
 * </ol>
 * Before every claim it asks the controller how many tasks it may claim ({@link ClaimGate}); the
 * answer can also tell it to stop at a chosen point with that task (while holding the lock, or
 * the claim), so that the controller can pause or kill it exactly there.
 */
public final class DemoWorker implements AutoCloseable {
    /** The session timeout the demo asks for; the run checks what the server granted. */
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);
    /** How long a worker the controller's gate holds back waits (reading commands) before it asks again. */
    private static final Duration GATED_PAUSE = Duration.ofMillis(100);

    private final Args args;
    private final Wire wire;
    private final ExecutorService events = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "demo-worker-events");
        t.setDaemon(true);
        return t;
    });
    private final List<AutoCloseable> resources = new ArrayList<>();
    private CoordClient client;
    private volatile String[] connect;
    private boolean stallNext;
    private volatile int finishParties;
    private long lastConfigVersion = Long.MIN_VALUE;

    /** What the controller passes on the command line; the ensemble comes later ({@code C CONNECT ...}). */
    record Args(String name, int parties, long seed, int[] waves, int applyMs, int port) {
        static Args parse(String[] argv) {
            Map<String, String> a = Wire.parse(argv, 0);
            String[] sizes = a.get("waves").split(",");
            int[] waves = new int[sizes.length];
            for (int i = 0; i < sizes.length; i++) {
                waves[i] = Integer.parseInt(sizes[i]);
            }
            return new Args(a.get("name"), Integer.parseInt(a.get("parties")), Long.parseLong(a.get("seed")), waves,
                    Integer.parseInt(a.get("applyMs")), Integer.parseInt(a.get("port")));
        }

        String[] toArgv() {
            StringBuilder w = new StringBuilder();
            for (int size : waves) {
                w.append(w.length() == 0 ? "" : ",").append(size);
            }
            return new String[] {"name=" + name, "parties=" + parties, "seed=" + seed, "waves=" + w, "applyMs=" + applyMs,
                "port=" + port};
        }
    }

    DemoWorker(Args args, Wire wire) {
        this.args = args;
        this.wire = wire;
    }

    public static void main(String[] argv) {
        Wire wire = new Wire(System.in, System.out);
        int code = 0;
        try (DemoWorker worker = new DemoWorker(Args.parse(argv), wire)) {
            worker.run();
        } catch (InterruptedException e) {
            wire.emit("FAILED", "error", "interrupted");
            code = 1;
        } catch (RuntimeException e) {
            wire.emit("FAILED", "error", e.getClass().getSimpleName() + ":" + e.getMessage());
            e.printStackTrace();
            code = 1;
        }
        System.exit(code);
    }

    void run() throws InterruptedException {
        // The controller starts the workers while its ensemble starts: meanwhile, load what connecting needs.
        warmUp();
        if (!"CONNECT".equals(awaitCommand("CONNECT", Duration.ofSeconds(180))) || connect == null) {
            throw new IllegalStateException("no CONNECT from the controller within 180 s");
        }
        client = CoordClient.connect(CoordSettings.builder().connectString(connect[0]).namespace(connect[1])
                .sessionTimeout(SESSION_TIMEOUT).connectionTimeout(DemoLayout.CONNECT_TIMEOUT).build());
        resources.add(client);
        wire.emit("HELLO", "pid", ProcessHandle.current().pid(), "session", client.session().idHex(),
                "timeout", client.negotiatedSessionTimeout().toMillis());
        client.onNewSession(s -> wire.emit("SESSION", "session", s.idHex()), events);

        Group<Map<String, Object>> group = Group.open(client, DemoLayout.GROUP, mapType());
        resources.add(group);
        Membership<Map<String, Object>> me = group.join(args.name(), Map.of("pid", ProcessHandle.current().pid()));
        me.addListener(new Membership.Listener() {
            @Override
            public void onRejoined(Membership<?> membership, io.coord.CoordSession session) {
                wire.emit("REJOINED", "session", session.idHex());
            }
        }, events);
        wire.emit("JOINED", "group", DemoLayout.GROUP);

        Discovery discovery = Discovery.open(client);
        resources.add(discovery);
        discovery.register(Endpoint.builder(DemoLayout.SERVICE, args.name()).address("127.0.0.1").port(args.port())
                .payloadJson("{\"pid\":" + ProcessHandle.current().pid() + "}").build());
        wire.emit("REGISTERED", "service", DemoLayout.SERVICE, "port", args.port());

        LiveConfig<Integer> batchSize = LiveConfig.watch(client, DemoLayout.BATCH_SIZE,
                ConfigOptions.builder().instanceId(args.name()).build());
        resources.add(batchSize);
        batchSize.addListener(new ConfigListener<>() {
            @Override
            public void onChange(io.coord.config.ConfigChange<Integer> change) {
                reportConfig(change.current());
            }
        }, events);
        batchSize.awaitInitialized(Duration.ofSeconds(20));
        reportConfig(batchSize.current());

        TaskQueue<Payload> queue = TaskQueue.open(client, DemoLayout.QUEUE, Codec.json(Payload.class),
                QueueOptions.builder().consumerName(args.name()).backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).build());
        resources.add(queue);
        DistributedLock lock = Locks.mutex(client, DemoLayout.LEDGER_LOCK, LockOptions.builder().ownerName(args.name()).build());

        Election election = Election.open(client, DemoLayout.ELECTION, ElectionOptions.builder()
                .participantId(args.name()).requeue(true).taskStopTimeout(Duration.ofSeconds(2)).build());
        resources.add(election);
        Coordinator coordinator = new Coordinator(client, queue, wire, args.seed(), args.waves());
        election.lead(coordinator::lead);

        barrier(DemoLayout.START_BARRIER, args.parties());
        work(queue, lock, batchSize);
        barrier(DemoLayout.FINISH_BARRIER, finishParties);
        wire.emit("BYE");
    }

    @SuppressWarnings("unchecked")
    private static Class<Map<String, Object>> mapType() {
        return (Class<Map<String, Object>>) (Class<?>) Map.class;
    }

    private synchronized void reportConfig(Versioned<Integer> applied) {
        if (applied.version() > lastConfigVersion) {
            lastConfigVersion = applied.version();
            wire.emit("CONFIG", "key", "batch.size", "version", applied.version(), "value", applied.value());
        }
    }

    private void barrier(String name, int parties) throws InterruptedException {
        DoubleBarrier barrier = DoubleBarrier.create(client, name, parties, BarrierOptions.builder().memberId(args.name()).build());
        // The first workers up wait at the start barrier while the controller sets the others up, four at a time.
        try (BarrierSeat seat = barrier.enter(Duration.ofSeconds(60 + 15L * parties))) {
            wire.emit("BARRIER", "name", name, "phase", "entered", "generation", seat.generation(), "parties", parties);
            seat.leave(Duration.ofSeconds(60));
            wire.emit("BARRIER", "name", name, "phase", "left", "generation", seat.generation(), "parties", parties);
        }
    }

    /** Claims and applies tasks until the controller says FINISH. */
    private void work(TaskQueue<Payload> queue, DistributedLock lock, LiveConfig<Integer> batchSize) throws InterruptedException {
        while (finishParties == 0) {
            pollCommands(Duration.ZERO);
            String[] allowed = wire.call("CLAIM" + Wire.format("max", batchSize.get()), CALL_TIMEOUT).split(" ");
            int may = Integer.parseInt(allowed[0]);
            if (may == 0) {
                pollCommands(GATED_PAUSE); // the script lets others claim for now: ask again shortly
                continue;
            }
            List<TaskClaim<Payload>> batch = new ArrayList<>();
            Optional<TaskClaim<Payload>> next = queue.claim(Duration.ofMillis(200));
            while (next.isPresent()) {
                batch.add(next.get());
                next = batch.size() < may ? queue.claim(Duration.ZERO) : Optional.empty();
            }
            wire.emit("CLAIMED", "tasks", batch.size());
            if (batch.isEmpty()) {
                continue;
            }
            String stop = allowed.length > 1 ? allowed[1] : "";
            stallNext |= stop.equals("stall"); // kept until reached: a dropped batch does not lose it
            try {
                List<String> again = batch.stream().filter(c -> c.deliveries() > 1)
                        .map(c -> c.payload().id() + ":" + c.deliveries()).toList();
                if (!again.isEmpty()) {
                    wire.emit("RETRY", "tasks", String.join(",", again));
                }
                if (stop.equals("hold")) {
                    wire.emit("HOLDING", "task", batch.get(0).payload().id(), "claims", batch.size());
                    pollCommands(Duration.ofSeconds(60)); // the controller kills this process here
                }
                apply(batch, lock);
            } catch (CoordException e) {
                wire.emit("ABANDONED", "tasks", batch.size(), "reason", e.getClass().getSimpleName());
            } finally {
                batch.forEach(TaskClaim::close); // releases what was not completed: back to the queue
            }
        }
    }

    /**
     * Applies a batch under the ledger lock: for each task, read the balance, compute, write the
     * new balance with the lock's token. The lease and the claim are checked before each task; a
     * process paused right after that check (the STALL point) still sends its write, and it is
     * the fence at the ledger that must refuse it.
     */
    private void apply(List<TaskClaim<Payload>> batch, DistributedLock lock) throws InterruptedException {
        try (LockLease lease = lock.acquire(Duration.ofSeconds(30))) {
            String token = DemoLayout.hex(lease.token().value());
            for (TaskClaim<Payload> claim : batch) {
                lease.checkValid();
                claim.checkValid();
                Payload task = claim.payload();
                long balance = Long.parseLong(wire.call("READ", CALL_TIMEOUT));
                TimeUnit.MILLISECONDS.sleep(args.applyMs()); // the work this lock protects
                if (stallNext) {
                    stallNext = false;
                    wire.emit("STALL", "task", task.id(), "token", token);
                    awaitCommand("GO", Duration.ofSeconds(60)); // the controller pauses this process here
                }
                String answer = wire.call("WRITE" + Wire.format("task", task.id(), "amount", task.amount(),
                        "balance", balance + task.amount(), "token", token, "node", lease.node().value()), CALL_TIMEOUT);
                if (!answer.startsWith("ok")) {
                    wire.emit("REJECTED", "task", task.id(), "token", token, "answer", answer);
                    return; // a newer lock holder exists: this lease is gone, stop the batch
                }
                claim.completeWith(List.of(doneMarker(task)));
                wire.emit("DONE", "task", task.id(), "delivery", claim.deliveries());
            }
        }
    }

    /** The task's done marker, created in the completion's own transaction: it exists exactly when the task completed. */
    private CuratorOp doneMarker(Payload task) {
        try {
            return client.curator().transactionOp().create()
                    .forPath(DemoLayout.DONE.child(Long.toString(task.id())).value(), args.name().getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new IllegalStateException("could not build the done marker of task " + task.id(), e);
        }
    }

    /** Waits (at most {@code bound}) for the command {@code name}, acting on others meanwhile; returns it, or null. */
    private String awaitCommand(String name, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            String command = wire.nextCommand(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            if (command != null && handle(command).equals(name)) {
                return name;
            }
        }
        return null;
    }

    /** Loads the classes a first connection needs (and builds the JSON mapper): JVM start-up overlaps the ensemble's. */
    private static void warmUp() {
        Codec.mapper();
        for (String type : new String[] {"org.apache.curator.framework.CuratorFrameworkFactory", "org.apache.zookeeper.ZooKeeper",
            "org.apache.zookeeper.ClientCnxnSocketNIO", "org.apache.curator.framework.recipes.cache.CuratorCache",
            "org.apache.curator.x.discovery.ServiceDiscoveryBuilder"}) {
            try {
                Class.forName(type);
            } catch (ClassNotFoundException e) {
                // only a warm-up: the real use will load it, or fail with a clear error
            }
        }
    }

    private void pollCommands(Duration wait) throws InterruptedException {
        String command = wire.nextCommand(wait);
        while (command != null) {
            handle(command);
            command = wire.nextCommand(Duration.ZERO);
        }
    }

    /** Acts on one command; returns its name. */
    private String handle(String command) {
        String[] words = command.split(" ");
        switch (words[0]) {
            case "FINISH" -> finishParties = Integer.parseInt(words[1]);
            case "CONNECT" -> connect = new String[] {words[1], words[2]};
            case "EXIT" -> throw new IllegalStateException("the controller is gone");
            default -> {
                // GO, or unknown: nothing to set
            }
        }
        return words[0];
    }

    /** Leaves everything in reverse order: the election, the config reader, the queue, discovery, the group, the client. */
    @Override
    public void close() {
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                // closing on the way out: the session's end removes whatever is left
            }
        }
        events.shutdownNow();
    }
}
