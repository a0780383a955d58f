package io.coord.chaos;

import io.coord.test.Awaits;
import io.coord.test.ChildJvm;
import io.coord.test.ClientProxy;
import io.coord.test.SteppedClock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The controller's end of one worker: its child JVM, the proxy it connects through, and a reader
 * thread that separates the worker's {@code SESSION} reports (kept for session expiry) from the
 * scenario's own lines (queued for {@link #next}).
 */
public final class WorkerLink implements AutoCloseable {
    /** A worker's current ZooKeeper session, as it last reported it. */
    public record SessionInfo(long id, byte[] password) {
    }

    private static final String EOF = "\u0000eof";
    /** How long (scaled) a worker may take to start and connect. */
    static final Duration START = Duration.ofSeconds(60);
    /**
     * The same under libfaketime: 10-45 s were measured on 2 busy cores while libfaketime's monotonic
     * fix made the child busy-loop (SteppedClock now turns it off); kept as a bound for a hang.
     */
    static final Duration STEPPED_START = Duration.ofSeconds(150);

    private final String name;
    private final ChildJvm jvm;
    private final ClientProxy proxy;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final AtomicReference<SessionInfo> session = new AtomicReference<>();
    private final Thread reader;
    private volatile boolean paused;
    private volatile boolean closed;
    private volatile long negotiatedMs = -1;

    private WorkerLink(String name, ChildJvm jvm, ClientProxy proxy) {
        this.name = name;
        this.jvm = jvm;
        this.proxy = proxy;
        this.reader = new Thread(this::pump, "chaos-link-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts worker {@code name} for {@code scenario}, connecting through a new proxy to
     * {@code ensembleConnect}, on {@code clock} if not null (fault F12). Does not wait for it: see
     * {@link #awaitReady}.
     */
    static WorkerLink start(String scenario, String name, String ensembleConnect, String namespace, Duration session,
                            SteppedClock clock, String... scenarioArgs) {
        ClientProxy proxy = ClientProxy.to(ensembleConnect);
        try {
            String[] args = new String[5 + scenarioArgs.length];
            args[0] = scenario;
            args[1] = proxy.connectString();
            args[2] = namespace;
            args[3] = Long.toString(session.toMillis());
            args[4] = name;
            System.arraycopy(scenarioArgs, 0, args, 5, scenarioArgs.length);
            ChildJvm.Builder b = ChildJvm.builder(ChaosWorker.class.getName())
                    .jvmOption("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                    .args(args);
            // a worker may retry its first connect for as long as the controller waits for it (slower under libfaketime)
            b.jvmOption("-D" + ChaosWorker.START_PROPERTY + "=" + Awaits.scaled(clock != null ? STEPPED_START : START).toMillis());
            if (clock != null) {
                clock.applyTo(b);
            }
            ChildJvm jvm = b.start();
            return new WorkerLink(name, jvm, proxy);
        } catch (RuntimeException e) {
            proxy.close();
            throw e;
        }
    }

    private void pump() {
        while (!closed) {
            Optional<String> line = jvm.readLine(Duration.ofMillis(200));
            if (line.isEmpty()) {
                if (!jvm.isAlive()) {
                    break;
                }
                continue;
            }
            String l = line.get();
            if (l.startsWith("SESSION ")) {
                String[] p = l.split(" ");
                session.set(new SessionInfo(Long.parseUnsignedLong(p[1], 16), HexFormat.of().parseHex(p[2])));
            } else if (l.startsWith("READY ")) {
                negotiatedMs = Long.parseLong(l.substring(6).trim());
            } else {
                lines.add(l);
            }
        }
        lines.add(EOF);
    }

    /**
     * Waits (at most {@code timeout}) for the worker to connect and returns its negotiated session
     * timeout in ms; fails naming the worker and its log otherwise.
     */
    long awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (negotiatedMs < 0 || session.get() == null) {
            if (System.nanoTime() > deadline || !jvm.isAlive()) {
                throw new IllegalStateException("worker " + name + " did not connect within " + timeout.toMillis() + " ms"
                        + (jvm.isAlive() ? "" : " (it exited)") + jvm.stderrTail());
            }
            Thread.sleep(20);
        }
        return negotiatedMs;
    }

    public String name() {
        return name;
    }

    /** Sends one line to the worker. Lines sent while it is paused wait in the pipe. */
    public void send(String line) {
        jvm.send(line);
    }

    /** The worker's next scenario line within {@code timeout}; empty if none came or the worker ended. */
    public Optional<String> next(Duration timeout) throws InterruptedException {
        String l = lines.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (l == null) {
            return Optional.empty();
        }
        if (l == EOF) {
            lines.add(EOF);
            return Optional.empty();
        }
        return Optional.of(l);
    }

    /** The worker's session as it last reported it (empty before its first report). */
    public Optional<SessionInfo> session() {
        return Optional.ofNullable(session.get());
    }

    public ClientProxy proxy() {
        return proxy;
    }

    public boolean isPaused() {
        return paused;
    }

    public boolean isAlive() {
        return jvm.isAlive();
    }

    /** SIGSTOP (fault F1). */
    public synchronized void pause() {
        paused = true; // SIGSTOP is sent even if confirming the stop then fails: resume() must still send SIGCONT
        jvm.pause();
    }

    /** SIGCONT after {@link #pause()}. */
    public synchronized void resume() {
        if (paused) {
            jvm.resume();
            paused = false;
        }
    }

    /** SIGKILL (fault F13): the worker dies without running any shutdown code; waits until it is gone. */
    public synchronized void kill9() {
        jvm.kill9();
        paused = false;
    }

    /** The worker's stderr tail, for failure messages. */
    public String log() {
        return jvm.stderrTail();
    }

    /**
     * Asks the worker to exit ({@code exit}), waits a little for it, then kills whatever is left
     * and closes the proxy. Never throws.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            if (jvm.isAlive()) {
                resume();
                jvm.send("exit");
                jvm.awaitExit(Duration.ofSeconds(5));
            }
        } catch (RuntimeException | AssertionError e) {
            // killed below
        }
        closed = true;
        AclAudit.scanWorkerLog(name, jvm.stderr()); // before the harness deletes the log
        jvm.close();
        proxy.close();
    }

    @Override
    public String toString() {
        return name + "(" + jvm + ")";
    }
}
