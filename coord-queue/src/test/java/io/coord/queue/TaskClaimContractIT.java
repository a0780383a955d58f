package io.coord.queue;

import io.coord.CoordClient;
import io.coord.test.LeaseContract;
import java.time.Duration;

/** The lease contract for a {@link TaskClaim}, ended the queue's own way by {@link TaskClaim#complete()}. */
class TaskClaimContractIT extends LeaseContract {
    @Override
    protected Held acquire(CoordClient client, Duration timeout) throws Exception {
        TaskQueue<String> queue = TaskQueue.open(client, "contract", String.class);
        queue.enqueue("task");
        TaskClaim<String> claim = queue.claim(timeout).orElseThrow(() -> new AssertionError("no task claimed within " + timeout));
        return new Held(claim, claim::complete, queue);
    }
}
