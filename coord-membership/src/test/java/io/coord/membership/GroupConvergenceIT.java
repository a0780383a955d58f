package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Many observers, random churn: every observer ends with the same view, reached by exact differences. */
class GroupConvergenceIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final Closer closer = new Closer();

    record Meta(int generation) {
    }

    @Test
    void tenObserversConvergeToTheSameViewAfterAHundredRandomJoinsLeavesAndUpdates() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        ExecutorService events = Executors.newFixedThreadPool(2);
        closer.add(() -> {
            events.shutdownNow();
            events.awaitTermination(5, TimeUnit.SECONDS);
        });
        List<Group<Meta>> observers = new ArrayList<>();
        List<Recorder<Meta>> recorders = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Group<Meta> g = closer.add(Group.open(zk.newClient(), "churn", Meta.class));
            Recorder<Meta> r = new Recorder<>();
            g.addListener(r, events);
            observers.add(g);
            recorders.add(r);
        }
        List<Group<Meta>> joiners = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            joiners.add(closer.add(Group.open(zk.newClient(), "churn", Meta.class)));
        }

        Map<String, Membership<Meta>> live = new HashMap<>();
        int joins = 0;
        int leaves = 0;
        int updates = 0;
        for (int op = 0; op < 100; op++) {
            int kind = live.isEmpty() ? 0 : random.nextInt(3);
            if (kind == 0 && live.size() < 25) {
                String id;
                do {
                    id = "m" + random.nextInt(40);
                } while (live.containsKey(id));
                live.put(id, joiners.get(random.nextInt(joiners.size())).join(id, new Meta(op)));
                joins++;
            } else if (kind == 1 || kind == 0) {
                String id = pick(random, live);
                live.remove(id).leave();
                leaves++;
            } else {
                live.get(pick(random, live)).update(new Meta(op));
                updates++;
            }
        }

        CoordClient fresh = zk.newClient();
        GroupView<Meta> truth = closer.add(Group.open(fresh, "churn", Meta.class)).view();
        assertEquals(new TreeSet<>(live.keySet()), truth.ids(), "the fresh read holds exactly the live members (seed " + seed + ")");
        assertEquals(new TreeSet<>(fresh.curator().getChildren().forPath("/groups/churn")), truth.ids());

        for (int i = 0; i < observers.size(); i++) {
            Group<Meta> g = observers.get(i);
            Awaits.until("observer " + i + " holds the fresh view (seed " + seed + ", " + joins + " joins, " + leaves
                    + " leaves, " + updates + " updates)", Duration.ofSeconds(10), () -> g.view().equals(truth));
        }
        for (int i = 0; i < recorders.size(); i++) {
            Recorder<Meta> r = recorders.get(i);
            Awaits.until("observer " + i + "'s listener was told the last view", Duration.ofSeconds(10),
                    () -> r.lastView() != null && r.lastView().version() == truth.version());
            assertEquals(truth.members(), r.replayed(), "observer " + i + ": replaying its events gives the view (seed " + seed + ")");
            List<Long> versions = r.versions();
            for (int v = 1; v < versions.size(); v++) {
                assertTrue(versions.get(v) > versions.get(v - 1), "observer " + i + " versions strictly grow: " + versions);
            }
        }
    }

    private static String pick(Random random, Map<String, ?> live) {
        List<String> ids = new ArrayList<>(new TreeSet<>(live.keySet()));
        return ids.get(random.nextInt(ids.size()));
    }
}
