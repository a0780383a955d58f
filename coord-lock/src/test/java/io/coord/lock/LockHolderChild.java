package io.coord.lock;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.Lease;
import io.coord.LeaseListener;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * A lock holder in its own JVM, so a test can SIGSTOP it. Takes the lock, prints
 * {@code HELD <token> <session>}, reports lease events as {@code EVENT <name>}, then obeys one
 * command per line and answers with one line:
 * <ul>
 *   <li>{@code guard-write V}: asks the test's fenced resource to take V → {@code GUARDWRITE <token> V}
 *       (the resource, in the test, decides by the token);
 *   <li>{@code fenced-write V}: {@code lease.guardedSetData(target, V)} → {@code FENCED ok|refused <why>};
 *   <li>{@code raw-fenced-write V}: one {@code multi(check(our node), setData(target, V))}, without
 *       asking the lease's state first → {@code RAWFENCED ok|refused <why>};
 *   <li>{@code plain-write V}: {@code setData(target, V)}, unfenced (the control) → {@code PLAIN ok|failed <why>};
 *   <li>{@code state} → {@code STATE <lease state> <token>}; {@code exit} ends the process.
 * </ul>
 * Args: connect string, namespace, session timeout ms, lock path, target path.
 */
public final class LockHolderChild {
    private LockHolderChild() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        CoordSettings settings = CoordSettings.builder().connectString(args[0]).namespace(args[1])
                .sessionTimeout(Duration.ofMillis(Long.parseLong(args[2]))).connectionTimeout(Duration.ofSeconds(60)).build();
        CoordPath lockPath = CoordPath.of(args[3]);
        CoordPath target = CoordPath.of(args[4]);
        var listenerThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "child-lease-events");
            t.setDaemon(true);
            return t;
        });
        try (CoordClient client = CoordClient.connect(settings)) {
            LockLease lease = Locks.mutex(client, lockPath, LockOptions.builder().ownerName("paused-child").build())
                    .acquire(Duration.ofSeconds(30));
            lease.addListener(new LeaseListener() {
                @Override
                public void onUncertain(Lease l) {
                    out.println("EVENT uncertain");
                }

                @Override
                public void onRestored(Lease l) {
                    out.println("EVENT restored");
                }

                @Override
                public void onLost(Lease l, CoordException cause) {
                    out.println("EVENT lost");
                }
            }, listenerThread);
            out.println("HELD " + lease.token().value() + " " + client.session().idHex());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String[] cmd = line.split(" ", 2);
                String value = cmd.length > 1 ? cmd[1] : "";
                byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
                switch (cmd[0]) {
                    case "guard-write" -> out.println("GUARDWRITE " + lease.token().value() + " " + value);
                    case "fenced-write" -> {
                        try {
                            lease.guardedSetData(target, bytes);
                            out.println("FENCED ok");
                        } catch (CoordException e) {
                            out.println("FENCED refused " + e.getClass().getSimpleName());
                        }
                    }
                    case "raw-fenced-write" -> {
                        try {
                            client.curator().transaction().forOperations(List.of(lease.fenceCheck(),
                                    client.curator().transactionOp().setData().forPath(target.value(), bytes)));
                            out.println("RAWFENCED ok");
                        } catch (Exception e) {
                            out.println("RAWFENCED refused " + e.getClass().getSimpleName());
                        }
                    }
                    case "plain-write" -> {
                        try {
                            client.curator().setData().forPath(target.value(), bytes);
                            out.println("PLAIN ok");
                        } catch (Exception e) {
                            out.println("PLAIN failed " + e.getClass().getSimpleName());
                        }
                    }
                    case "state" -> out.println("STATE " + lease.state() + " " + lease.token().value());
                    case "exit" -> {
                        lease.close();
                        return;
                    }
                    default -> out.println("UNKNOWN " + line);
                }
            }
        }
    }
}
