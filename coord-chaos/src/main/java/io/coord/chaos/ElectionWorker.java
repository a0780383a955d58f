package io.coord.chaos;

import io.coord.CoordClient;
import io.coord.Registration;
import io.coord.election.Election;
import io.coord.election.ElectionOptions;
import io.coord.election.Leadership;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.data.Stat;

/**
 * Worker side of the election scenario: a candidate that, while it leads, writes to the
 * controller's fenced resource with its epoch every 20 ms, and requeues after losing.
 * <pre>
 * W: LEADING &lt;epoch&gt;                  when a leadership starts
 * W: WRITE &lt;epoch&gt; &lt;n&gt;                 C: ACCEPTED &lt;n&gt; | REJECTED &lt;n&gt;
 * W: HELD-CHECK yes|no|unknown          after a refusal: is our node still ours? then it resigns
 * C: exit                               closes the election and ends the worker
 * </pre>
 * The main thread is the only reader of the controller's lines; it hands replies to the leader
 * task, which matches them by number (a reply to a write the task was interrupted in is dropped).
 * A leader resigns after {@code term} accepted writes (argument 1), so leadership changes hands
 * on its own too. Argument 0: {@code fenced} (the leader checks its lease before each write) or
 * {@code unfenced} (the control: a leader that trusts its flag, never checks and ignores the
 * election's interrupt until its term is written).
 */
final class ElectionWorker implements WorkerLogic {
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private final AtomicLong writes = new AtomicLong();
    private boolean fenced;
    private int term;

    @Override
    public void run(WorkerContext ctx) throws InterruptedException {
        WorkerIo io = ctx.io();
        fenced = !"unfenced".equals(ctx.arg(0));
        term = Integer.parseInt(ctx.arg(1));
        try (Election election = Election.open(ctx.client(), "chaos",
                ElectionOptions.builder().participantId(ctx.name()).requeue(true).build())) {
            Registration reg = election.lead(l -> lead(ctx, l));
            try {
                while (true) {
                    String line = io.next(Duration.ofHours(24));
                    if (line.equals("exit")) {
                        return;
                    }
                    replies.add(line);
                }
            } finally {
                try {
                    reg.close();
                } catch (RuntimeException e) {
                    // closing the election below resigns anyway
                }
            }
        }
    }

    private void lead(WorkerContext ctx, Leadership leadership) throws InterruptedException {
        WorkerIo io = ctx.io();
        long epoch = leadership.epoch().value();
        io.send("LEADING " + epoch);
        boolean interrupted = false;
        for (int i = 0; i < term; i++) {
            if (fenced) {
                leadership.checkValid(); // UNCERTAIN or LOST: start no new protected work
            }
            long n = writes.incrementAndGet();
            io.send("WRITE " + epoch + " " + n);
            // The control trusts its flag all the way: it does not honour the election's interrupt
            // either, like a process whose writer thread ignores it. Otherwise the control would
            // depend on a race between the resumed writer and the interrupt (which Coord now wins
            // more often: a lease is UNCERTAIN the moment its session is).
            String reply;
            try {
                reply = awaitReply(n);
            } catch (InterruptedException e) {
                if (fenced) {
                    throw e;
                }
                interrupted = true;
                reply = awaitReplyIgnoringInterrupts(n);
            }
            if (reply.startsWith("REJECTED")) {
                io.send("HELD-CHECK " + stillOurs(ctx.client(), leadership));
                break; // resign; requeue joins again
            }
            try {
                Thread.sleep(20); // pacing of the leader's work, not a synchronization
            } catch (InterruptedException e) {
                if (fenced) {
                    throw e;
                }
                interrupted = true;
            }
        }
        if (interrupted) {
            throw new InterruptedException("the unfenced control leader ends the term it ignored the interrupt for");
        }
    }

    private String awaitReplyIgnoringInterrupts(long n) {
        while (true) {
            try {
                return awaitReply(n);
            } catch (InterruptedException again) {
                // the control keeps waiting for its answer
            }
        }
    }

    private String awaitReply(long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            String r = replies.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (r == null) {
                throw new IllegalStateException("no answer from the controller to write " + n);
            }
            if (r.endsWith(" " + n)) {
                return r;
            }
        }
    }

    private static String stillOurs(CoordClient client, Leadership leadership) throws InterruptedException {
        try {
            Stat s = client.curator().checkExists().forPath(leadership.node().value());
            long session = client.curator().getZookeeperClient().getZooKeeper().getSessionId();
            return s != null && s.getEphemeralOwner() == session ? "yes" : "no";
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            return "unknown";
        }
    }
}
