package io.coord.queue;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooKeeper;

/**
 * A consumer in a child JVM, driven by {@link QueueFaultIT}: one worker thread that claims a task,
 * prints {@code START task token}, "works" for a few milliseconds, and completes the task together
 * with a completion record ({@code /records/<task>-<seq>}, created in the completion transaction,
 * so a second accepted completion of a task would show as a second record). Prints
 * {@code SESSION id password timeout} for every session it gets, so the controller can expire it.
 * On {@code STOP} it closes its worker, prints {@code BYE} and exits.
 *
 * <p>Arguments: connect string, namespace, queue name, work milliseconds, and optionally the
 * session timeout in milliseconds (default 2000: short, so a killed consumer's claims come back soon),
 * the queue's partitions (default 1), the worker's threads (default 1) and record buckets (default 0:
 * records directly under {@code /records}; B &gt; 0: under {@code /records/b{hash mod B}}, so a run of
 * 200 000 tasks lists in pieces, and {@code START} lines end with the payload's number).
 */
public final class ConsumerMain {
    private ConsumerMain() {
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        String namespace = args[1];
        String queueName = args[2];
        int workMs = Integer.parseInt(args[3]);
        Duration session = Duration.ofMillis(args.length > 4 ? Long.parseLong(args[4]) : 2000);
        int partitions = args.length > 5 ? Integer.parseInt(args[5]) : 1;
        int threads = args.length > 6 ? Integer.parseInt(args[6]) : 1;
        int buckets = args.length > 7 ? Integer.parseInt(args[7]) : 0;
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(connect).namespace(namespace)
                .sessionTimeout(session).connectionTimeout(Duration.ofSeconds(30)).build()); // a loaded machine connects slowly
        printSession(client, out);
        client.onNewSession(s -> printSession(client, out), Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "session-printer");
            t.setDaemon(true);
            return t;
        }));
        TaskQueue<Job> queue = TaskQueue.open(client, queueName, io.coord.Codec.json(Job.class),
                QueueOptions.builder().consumerName("child-" + ProcessHandle.current().pid()).partitions(partitions).build());
        TaskWorker worker = queue.work(threads, claim -> {
            String task = claim.id().name();
            out.println("START " + task + " " + claim.token().value() + (buckets > 0 ? " " + claim.payload().n() : ""));
            try {
                Thread.sleep(workMs / 2 + ThreadLocalRandom.current().nextInt(workMs + 1));
            } catch (InterruptedException e) {
                // Interrupted (the runner is closing): the task will run again elsewhere.
                out.println("ABORT " + task + " " + claim.token().value());
                throw e;
            }
            String record = "/records/" + (buckets > 0 ? "b" + Math.floorMod(task.hashCode(), buckets) + "/" : "") + task + "-";
            try {
                claim.completeWith(List.of(client.curator().transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                        .forPath(record, Long.toString(claim.token().value()).getBytes(StandardCharsets.UTF_8))));
            } catch (ClaimLostException lost) {
                out.println("LOST " + task + " " + claim.token().value());
                throw lost;
            } catch (RuntimeException failure) {
                // e.g. ConnectionLostException under load: the completion may or may not have
                // committed; if it did not, the task runs again elsewhere. The controller decides
                // from the exception's name whether that explains a repeat.
                out.println("ABORT " + task + " " + claim.token().value() + " " + failure.getClass().getSimpleName());
                throw failure;
            }
            out.println("DONE " + task + " " + claim.token().value());
        });
        out.println("READY");
        // Runs until killed, or until told to STOP (or stdin closes: the controller went away).
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.equals("STOP"); line = in.readLine()) {
            // ignore other input
        }
        worker.close();
        // Everything the worker printed comes before this line, so a controller reading up to it has all of it.
        out.println("BYE");
        queue.close();
        client.close();
    }

    private static void printSession(CoordClient client, PrintStream out) {
        try {
            ZooKeeper zk = client.curator().getZookeeperClient().getZooKeeper();
            out.println("SESSION " + Long.toHexString(zk.getSessionId()) + " "
                    + Base64.getEncoder().encodeToString(zk.getSessionPasswd()) + " " + zk.getSessionTimeout());
        } catch (Exception e) {
            out.println("NOSESSION " + e);
        }
    }
}
