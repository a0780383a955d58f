package io.coord.lock;

import io.coord.test.BadInputs;
import io.coord.test.ZooKeeperExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.LockLostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Curator-compatible view: thread-owned, reentrant per thread, each hold a real fenced lease. */
class CuratorViewIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("inventory", "sku-7");
    private final ExecutorService other = Executors.newSingleThreadExecutor(r -> new Thread(r, "other-thread"));

    @AfterEach
    void stop() throws InterruptedException {
        other.shutdownNow();
        assertTrue(other.awaitTermination(10, TimeUnit.SECONDS));
    }

    @Test
    void reentrantPerThreadAndTheLeaseIsReleasedOnlyByTheLastRelease() throws Exception {
        CoordClient client = SERVER.newClient();
        DistributedLock lock = Locks.mutex(client, LOCK);
        InterProcessLock view = lock.asInterProcessLock();
        assertSame(view, lock.asInterProcessLock(), "one view per lock object");
        view.acquire();
        assertTrue(view.acquire(1, TimeUnit.SECONDS), "reentry by the owning thread is immediate");
        LockLease lease = lock.heldByCurrentThread().orElseThrow();
        assertTrue(view.isAcquiredInThisProcess());
        view.release();
        assertTrue(lock.heldByCurrentThread().isPresent(), "one release of two keeps the hold");
        lease.checkValid();
        view.release();
        assertFalse(view.isAcquiredInThisProcess());
        assertTrue(lock.heldByCurrentThread().isEmpty());
        assertNull(client.curator().checkExists().forPath(lease.node().value()), "the last release deleted the node");
    }

    @Test
    void releaseFromAThreadThatDoesNotOwnTheLockThrowsIllegalMonitorStateNamingTheOwner() throws Exception {
        DistributedLock lock = Locks.mutex(SERVER.newClient(), LOCK);
        InterProcessLock view = lock.asInterProcessLock();
        view.acquire();
        try {
            CompletableFuture<Throwable> failure = CompletableFuture.supplyAsync(() -> {
                try {
                    view.release();
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            }, other);
            Throwable t = failure.get(10, TimeUnit.SECONDS);
            assertTrue(t instanceof IllegalMonitorStateException, "got " + t);
            assertTrue(t.getMessage().contains("\"other-thread\" does not hold"), t.getMessage());
            assertTrue(t.getMessage().contains("\"" + Thread.currentThread().getName() + "\""), "names the owner: " + t.getMessage());
            lock.heldByCurrentThread().orElseThrow().checkValid();
        } finally {
            view.release();
        }
        assertThrows(IllegalMonitorStateException.class, view::release, "releasing more often than acquired");
    }

    /**
     * Bad-input row 27 with RELIABILITY.md (c)'s four checks ({@link BadInputs}): releasing a lock
     * this thread does not hold fails at once with {@code IllegalMonitorStateException} naming the
     * thread, the lock and who holds it, and nothing on the server changes (the holder's node stays).
     */
    @Test
    void row27ReleaseWithoutHoldingIsRefusedAtOnceNamingThreadAndLockAndChangesNothing() throws Exception {
        CoordClient client = SERVER.newClient();
        DistributedLock lock = Locks.mutex(client, LOCK);
        InterProcessLock view = lock.asInterProcessLock();
        String me = "\"" + Thread.currentThread().getName() + "\"";
        BadInputs.assertRefused("27 (release never acquired)", client, IllegalMonitorStateException.class, view::release,
                "thread " + me + " does not hold", LOCK.value(), "no thread of this process holds it");
        view.acquire();
        try {
            BadInputs.assertRefused("27 (release from another thread)", client, IllegalMonitorStateException.class, () -> {
                Throwable t = CompletableFuture.supplyAsync(() -> {
                    try {
                        view.release();
                        return null;
                    } catch (Throwable e) {
                        return e;
                    }
                }, other).get(10, TimeUnit.SECONDS);
                if (t != null) {
                    throw t;
                }
            }, "thread \"other-thread\" does not hold", LOCK.value(), "held here by thread " + me);
            lock.heldByCurrentThread().orElseThrow().checkValid();
        } finally {
            view.release();
        }
    }

    @Test
    void viewsInTwoClientsExcludeEachOtherAndTimedAcquireReturnsFalse() throws Exception {
        InterProcessLock mine = Locks.mutex(SERVER.newClient(), LOCK).asInterProcessLock();
        InterProcessLock theirs = Locks.mutex(SERVER.newClient(), LOCK).asInterProcessLock();
        mine.acquire();
        try {
            assertFalse(CompletableFuture.supplyAsync(() -> {
                try {
                    return theirs.acquire(200, TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, other).get(10, TimeUnit.SECONDS));
        } finally {
            mine.release();
        }
        assertTrue(CompletableFuture.supplyAsync(() -> {
            try {
                boolean got = theirs.acquire(5, TimeUnit.SECONDS);
                theirs.release();
                return got;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, other).get(10, TimeUnit.SECONDS));
    }

    @Test
    void worksOnAClientThatWrapsAnExistingCuratorFramework() throws Exception {
        CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(SERVER.connectString())
                .namespace(SERVER.namespace()).sessionTimeoutMs(4000).connectionTimeoutMs(4000)
                .retryPolicy(new ExponentialBackoffRetry(200, 3)).build();
        curator.start();
        try (CoordClient wrapped = CoordClient.wrap(curator)) {
            DistributedLock lock = Locks.mutex(wrapped, LOCK);
            InterProcessLock view = lock.asInterProcessLock();
            assertTrue(view.acquire(5, TimeUnit.SECONDS));
            LockLease lease = lock.heldByCurrentThread().orElseThrow();
            assertEquals(curator.checkExists().forPath(lease.node().value()).getCzxid(), lease.token().value());
            DistributedLock competitor = Locks.mutex(SERVER.newClient(), LOCK);
            assertTrue(competitor.tryAcquire().isEmpty(), "the wrapped client's hold excludes others");
            view.release();
            try (LockLease next = competitor.acquire(java.time.Duration.ofSeconds(5))) {
                assertTrue(next.token().isNewerThan(lease.token()));
            }
        } finally {
            curator.close();
        }
    }

    @Test
    void answersGetParticipantNodesAsInterProcessMutexDoesAndIsOwnedByCurrentThreadOnlyInTheOwner() throws Exception {
        CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(SERVER.connectString())
                .namespace(SERVER.namespace()).sessionTimeoutMs(4000).connectionTimeoutMs(4000)
                .retryPolicy(new ExponentialBackoffRetry(200, 3)).build();
        curator.start();
        try {
            CuratorLock view = Locks.mutex(SERVER.newClient(), LOCK).asInterProcessLock();
            InterProcessMutex curatorMutex = new InterProcessMutex(curator, LOCK.value());
            assertFalse(view.isOwnedByCurrentThread(), "nobody holds it yet");
            assertEquals(java.util.List.of(), java.util.List.copyOf(view.getParticipantNodes()), "no node yet");

            assertTrue(view.acquire(5, TimeUnit.SECONDS));
            CompletableFuture<Boolean> curatorWaits = CompletableFuture.supplyAsync(() -> {
                try {
                    return curatorMutex.acquire(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, other);
            io.coord.test.Awaits.until("the Curator waiter queued", java.time.Duration.ofSeconds(5), () -> {
                try {
                    return curatorMutex.getParticipantNodes().size() == 2;
                } catch (Exception e) {
                    return false;
                }
            });

            java.util.List<String> ours = java.util.List.copyOf(view.getParticipantNodes());
            assertEquals(java.util.List.copyOf(curatorMutex.getParticipantNodes()), ours,
                    "the same full paths in the same order as InterProcessMutex gives");
            assertEquals(view.heldByCurrentThread().orElseThrow().node().value(), ours.get(0), "the holder first");
            assertTrue(view.isOwnedByCurrentThread(), "the acquiring thread owns it");
            ExecutorService third = Executors.newSingleThreadExecutor();
            try {
                assertFalse(third.submit(view::isOwnedByCurrentThread).get(5, TimeUnit.SECONDS), "another thread of the same process does not");
            } finally {
                third.shutdownNow();
            }

            view.release();
            assertFalse(view.isOwnedByCurrentThread(), "released");
            assertTrue(curatorWaits.get(10, TimeUnit.SECONDS), "the Curator waiter got it next");
            other.submit(() -> {
                curatorMutex.release(); // InterProcessMutex is thread-owned too: its owner releases
                return null;
            }).get(10, TimeUnit.SECONDS);
        } finally {
            curator.close();
        }
    }

    @Test
    void anUnboundedAcquireEndsOnInterruptAndRemovesItsNode() throws Exception {
        CoordClient client = SERVER.newClient();
        DistributedLock holder = Locks.mutex(client, LOCK);
        try (LockLease held = holder.acquire(java.time.Duration.ofSeconds(5))) {
            InterProcessLock view = Locks.mutex(SERVER.newClient(), LOCK).asInterProcessLock();
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    view.acquire();
                    outcome.complete(null);
                } catch (Throwable e) {
                    outcome.complete(e);
                }
            }, "unbounded-waiter");
            t.start();
            LockTesting.await("queued", java.time.Duration.ofSeconds(10),
                    () -> LockTesting.inspect(client, LOCK).waiters().size() == 1);
            t.interrupt();
            assertTrue(outcome.get(10, TimeUnit.SECONDS) instanceof InterruptedException);
            t.join(5000);
            assertFalse(view.isAcquiredInThisProcess());
            assertEquals(java.util.List.of(held.node().name()), client.curator().getChildren().forPath(LOCK.value()));
        }
    }

    @Test
    void reentryOntoALostHoldIsRefused() throws Exception {
        CoordClient client = SERVER.newClient();
        DistributedLock lock = Locks.mutex(client, LOCK);
        InterProcessLock view = lock.asInterProcessLock();
        view.acquire();
        LockLease lease = lock.heldByCurrentThread().orElseThrow();
        LockTesting.expire(client, SERVER);
        lease.ended().get(10, TimeUnit.SECONDS);
        assertThrows(LockLostException.class, view::acquire, "a lost hold is not silently re-entered");
        view.release(); // balances the first acquire: the lost lease is closed, nothing else happens
        assertFalse(view.isAcquiredInThisProcess());
    }

    /**
     * Issue 16: InterProcessMutex.acquire() starts again on the new session when the waiter's
     * session ends while it waits (LockInternals.attemptLock retries within the retry policy), and
     * code written for Curator relies on it. The view does the same; the native API keeps failing
     * with SessionExpiredException, as documented.
     */
    @Test
    @org.junit.jupiter.api.Tag("fault")
    void aWaiterWhoseSessionExpiresQueuesAgainOnTheNewSessionAndAcquiresLikeInterProcessMutex() throws Exception {
        CoordClient holder = SERVER.newClient();
        CoordClient waiter = SERVER.newClient();
        LockLease held = Locks.mutex(holder, LOCK).acquire(io.coord.test.Awaits.scaled(java.time.Duration.ofSeconds(5)));
        DistributedLock lock = Locks.mutex(waiter, LOCK);
        InterProcessLock view = lock.asInterProcessLock();
        CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
            try {
                if (!view.acquire(io.coord.test.Awaits.scaled(java.time.Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS)) {
                    return -1L;
                }
                long session = lock.heldByCurrentThread().orElseThrow().session().id();
                view.release();
                return session;
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }, other);
        long expired = LockTesting.expireTheWaiterAndAwaitItQueuedAgain(holder, LOCK, waiter, SERVER);
        assertFalse(waited.isDone(), "still waiting: the holder holds");
        held.close();
        long session = waited.get(io.coord.test.Awaits.scaled(java.time.Duration.ofSeconds(20)).toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(session != expired && session != -1L, "acquired on the new session, got " + session);
    }
}
