package io.coord.barrier;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A barrier member in its own JVM, driven over stdin/stdout by a test (through coord-test's
 * {@code ChildJvm}), so that the test can kill it with SIGKILL while it is inside the barrier.
 *
 * <p>Arguments: connect string, namespace, barrier name, parties, member id, session timeout (ms).
 * Prints {@code ready} once connected. Commands: {@code enter} (answers {@code entered <generation>}
 * or {@code broken <message>}; runs in the background so the child keeps answering), {@code leave}
 * (the same with {@code left}), {@code quit}.
 */
public final class BarrierMemberChild {
    private BarrierMemberChild() {
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        String namespace = args[1];
        String name = args[2];
        int parties = Integer.parseInt(args[3]);
        String memberId = args[4];
        Duration session = Duration.ofMillis(Long.parseLong(args[5]));
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(connect).namespace(namespace)
                .sessionTimeout(session).connectionTimeout(Duration.ofSeconds(60)).build())) {
            DoubleBarrier barrier = DoubleBarrier.create(client, name, parties, BarrierOptions.builder().memberId(memberId).build());
            System.out.println("ready");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                switch (line.trim()) {
                    case "enter" -> background(() -> {
                        BarrierSeat seat = barrier.enter(Duration.ofSeconds(60));
                        System.out.println("entered " + seat.generation());
                    });
                    case "leave" -> background(() -> {
                        barrier.leave(Duration.ofSeconds(60));
                        System.out.println("left");
                    });
                    case "quit" -> {
                        return;
                    }
                    default -> System.out.println("unknown " + line);
                }
            }
        }
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    private static void background(Action action) {
        Thread t = new Thread(() -> {
            try {
                action.run();
            } catch (Exception e) {
                System.out.println("broken " + e.getMessage());
            }
        }, "child-member");
        t.setDaemon(true);
        t.start();
    }
}
