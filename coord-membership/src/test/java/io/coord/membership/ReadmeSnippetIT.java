package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordSession;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The README section's snippet, compiled and run, so the documentation cannot rot. */
class ReadmeSnippetIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    record Worker(String host, int slots) {
    }

    private final List<String> log = new CopyOnWriteArrayList<>();

    @Test
    void theReadmeSnippetRunsAsWritten() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        CoordClient client = zk.newClient();
        try (Group<Worker> workers = Group.open(client, "batch-7", Worker.class);
             Group<Worker> others = Group.open(zk.newClient(), "batch-7", Worker.class)) {
            for (int i = 0; i < 3; i++) {
                others.join("worker-" + i, new Worker("10.0.0." + i, 8));
            }
            // ---- from docs/RECIPES.md ----
            Membership<Worker> me = workers.join("worker-3", new Worker("10.0.0.3", 8));
            me.addListener(new Membership.Listener() {
                public void onNodeLost(Membership<?> m, CoordException cause) { log.add("out of the group: " + cause.getMessage()); }
                public void onRejoined(Membership<?> m, CoordSession session) { log.add("back, on session " + session.idHex()); }
            }, executor);
            me.update(new Worker("10.0.0.3", 6));

            workers.addListener(new GroupListener<>() {
                public void onJoined(MemberInfo<Worker> m, GroupView<Worker> view) { log.add("assign " + m.id()); }
                public void onLeft(MemberInfo<Worker> m, GroupView<Worker> view)   { log.add("reassign " + m.id()); }
                public void onFlap(Group.Flap flap) { log.add("unstable " + flap.memberId()); }
            }, executor);

            GroupView<Worker> view = workers.awaitMembers(4, Duration.ofMinutes(1));
            long version = view.version();
            me.leave();
            // ---- end ----
            assertEquals(4, view.size());
            assertEquals(Membership.State.LEFT, me.state());
            others.awaitMembers(3, Duration.ofSeconds(5));
            assertEquals(true, version > 0);
        } finally {
            executor.shutdown();
            executor.awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
