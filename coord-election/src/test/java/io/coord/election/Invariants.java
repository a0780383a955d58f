package io.coord.election;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.SessionState;
import io.coord.StaleTokenException;
import io.coord.fence.InMemoryFenceGuard;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What the fault tests check about in-JVM leaders, recorded as they run:
 * <ul>
 *   <li>when a leader starts acting, no other leadership is valid (ACQUIRED with a connected session);
 *   <li>a write refused by the fence (FenceGuard or fenced register) while its leadership still
 *       looked valid means two valid leaders at once;
 *   <li>each epoch belongs to one candidate;
 *   <li>in the register's commit order, epochs never go down.
 * </ul>
 * Leaders write the shared register every few milliseconds while they lead, so an overlap would be
 * caught by the fence, not by timing.
 */
final class Invariants {
    static final String RESOURCE = "shared-resource";

    final Set<Leadership> live = ConcurrentHashMap.newKeySet();
    final Map<Long, String> owners = new ConcurrentHashMap<>();
    final List<String> violations = new CopyOnWriteArrayList<>();
    /** Register writes: {version, epoch}. */
    final List<long[]> writes = new CopyOnWriteArrayList<>();
    final AtomicInteger fenced = new AtomicInteger();
    final AtomicInteger actingStarts = new AtomicInteger();
    final InMemoryFenceGuard fence = new InMemoryFenceGuard();

    static boolean valid(Leadership l) {
        return l.state() == LeaseState.ACQUIRED && l.session().state() == SessionState.CONNECTED;
    }

    void claim(long epoch, String id) {
        String previous = owners.putIfAbsent(epoch, id);
        if (previous != null && !previous.equals(id)) {
            violations.add("epoch 0x" + Long.toHexString(epoch) + " claimed by " + previous + " and " + id);
        }
    }

    void wrote(int version, long epoch) {
        writes.add(new long[] {version, epoch});
    }

    /** A leader task that writes the fenced resources until its leadership ends. */
    LeaderTask task(String id, CoordClient client, Consumer<Leadership> onStart) {
        return l -> {
            long epoch = l.epoch().value();
            claim(epoch, id);
            for (Leadership other : live) {
                if (other != l && valid(other) && valid(l)) {
                    violations.add(id + " started acting with epoch 0x" + Long.toHexString(epoch) + " while " + other + " was valid");
                }
            }
            live.add(l);
            actingStarts.incrementAndGet();
            onStart.accept(l);
            try {
                while (true) {
                    l.checkValid();
                    if (!fence.admit(RESOURCE, l.epoch())) {
                        refused(l, "the fence guard");
                        return;
                    }
                    wrote(FencedRegister.write(client, l), epoch);
                    Thread.sleep(10);
                }
            } catch (StaleTokenException e) {
                refused(l, "the register: " + e.getMessage());
            } catch (LockLostException e) {
                // checkValid saw UNCERTAIN/LOST, or the guarded write found our node gone: stop
            } catch (InterruptedException e) {
                throw e;
            } catch (CoordException | org.apache.zookeeper.KeeperException e) {
                // connection trouble mid-write, or an interrupt inside a guarded write: stop; the
                // election decides what happens next
            } catch (Exception e) {
                violations.add(id + ": unexpected " + e);
            } finally {
                live.remove(l);
            }
        };
    }

    private void refused(Leadership l, String by) {
        if (valid(l)) {
            violations.add(l + " was refused by " + by + " while still valid: a newer leader acted meanwhile");
        } else {
            fenced.incrementAndGet();
        }
    }

    /** In the register's commit order, epochs never decrease; returns the distinct epochs in that order. */
    List<Long> checkWriteOrder() {
        List<long[]> sorted = new ArrayList<>(writes);
        sorted.sort(Comparator.comparingLong(w -> w[0]));
        List<Long> epochs = new ArrayList<>();
        long last = 0;
        for (long[] w : sorted) {
            if (w[1] < last) {
                violations.add("register version " + w[0] + " written by epoch 0x" + Long.toHexString(w[1])
                        + " after epoch 0x" + Long.toHexString(last));
            }
            if (w[1] != last) {
                epochs.add(w[1]);
            }
            last = Math.max(last, w[1]);
        }
        return epochs;
    }

    /** Samples how many in-JVM leaderships are valid at once, until closed; keeps the maximum. */
    final class Sampler implements AutoCloseable {
        private volatile boolean running = true;
        private final AtomicInteger max = new AtomicInteger();
        private final Thread thread = new Thread(() -> {
            while (running) {
                // Three passes, so that two reads at different moments are not mistaken for
                // overlap: a valid at r1 and r3 was valid throughout (a terminal state never comes
                // back, and a restore needs its node, which blocks every later leader); b valid at
                // r2 in between means both were valid at r2.
                List<Leadership> snapshot = List.copyOf(live);
                boolean[] r1 = new boolean[snapshot.size()];
                boolean[] r2 = new boolean[snapshot.size()];
                boolean[] r3 = new boolean[snapshot.size()];
                for (int i = 0; i < r1.length; i++) {
                    r1[i] = valid(snapshot.get(i));
                }
                for (int i = 0; i < r2.length; i++) {
                    r2[i] = valid(snapshot.get(i));
                }
                for (int i = 0; i < r3.length; i++) {
                    r3[i] = valid(snapshot.get(i));
                }
                int n = 0;
                for (int i = 0; i < r2.length; i++) {
                    n += r1[i] && r2[i] && r3[i] ? 1 : 0; // valid throughout, so all at r2
                    for (int j = 0; j < r2.length; j++) {
                        if (i != j && r1[i] && r3[i] && r2[j]) {
                            violations.add("two valid leaderships at once: " + snapshot.get(i) + " and " + snapshot.get(j));
                        }
                    }
                }
                max.accumulateAndGet(n, Math::max);
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "leadership-sampler");

        Sampler() {
            thread.setDaemon(true);
            thread.start();
        }

        int max() {
            return max.get();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.interrupt();
            thread.join(5000);
        }
    }
}
