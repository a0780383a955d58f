package io.coord.lock;

import io.coord.CoordPath;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * {@link JucLock} over a lock's {@link ThreadView}: the thread-owned holds, the requeue on a new
 * session and the non-owner refusal are the Curator view's, so both views agree on who holds.
 * What is added here is only j.u.c's interrupt contract for {@link #lock()} and {@link #tryLock()}.
 */
final class JucView implements JucLock {
    private final ThreadView view;

    JucView(ThreadView view) {
        this.view = view;
    }

    @Override
    public CoordPath path() {
        return view.path();
    }

    @Override
    public void lock() {
        grantedIgnoringInterrupts(-1);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        view.acquireNanos(-1);
    }

    @Override
    public boolean tryLock() {
        return grantedIgnoringInterrupts(0);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return view.acquireNanos(Math.max(0, unit.toNanos(time)));
    }

    /**
     * Lock's {@code lock()} and {@code tryLock()} do not throw InterruptedException: an interrupt
     * (which removed our node) is remembered, the attempt made again, and the flag set again at the
     * end, as ReentrantLock does. The queue cannot wait uninterruptibly, so the retry queues anew.
     */
    private boolean grantedIgnoringInterrupts(long timeoutNanos) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return view.acquireNanos(timeoutNanos);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void unlock() {
        view.release();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("distributed " + view.what() + " " + path() + " has no Condition: await/signal"
                + " across processes needs a protocol of its own (who is signalled, what becomes of a signal whose waiter's"
                + " session ended), which a lock does not have. Wait for the state itself instead (a coord-barrier Gate,"
                + " a watch on the node that holds it, or a coord-queue TaskQueue), then take the lock and check it again");
    }

    @Override
    public Optional<LockLease> heldByCurrentThread() {
        return view.heldByCurrentThread();
    }

    @Override
    public String toString() {
        return "Lock[" + view.what() + " " + path() + "]";
    }
}
