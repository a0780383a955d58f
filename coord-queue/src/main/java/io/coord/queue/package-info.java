/**
 * A stateful FIFO task queue that loses nothing: {@link io.coord.queue.TaskQueue} (entry, from
 * {@code TaskQueue.open}), {@link io.coord.queue.TaskClaim} (the handle a consumer holds),
 * {@link io.coord.queue.TaskWorker} (consumer threads), {@link io.coord.queue.QueueOptions},
 * {@link io.coord.queue.TaskSpec}, and the values {@link io.coord.queue.TaskId},
 * {@link io.coord.queue.EnqueueResult}, {@link io.coord.queue.Task}, {@link io.coord.queue.QueueStats},
 * {@link io.coord.queue.TaskList} and {@link io.coord.queue.UndecodableTask}.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Nothing acknowledged is lost.</b> A task whose enqueue returned is completed, or
 *       dead-lettered with its last error, or still in the queue.
 *   <li><b>Completion is exactly-once; delivery is at-least-once.</b> A consumer that dies or
 *       loses its session mid-task gives the task back (its claim node is ephemeral); another
 *       consumer runs it again. But only the current claimer can complete or fail it: each ending
 *       is one transaction whose first operation checks the claim node, so a stale consumer gets
 *       {@link io.coord.queue.ClaimLostException} and changes nothing.
 *       {@link io.coord.queue.TaskClaim#completeWith} puts your own writes in that transaction,
 *       so they too happen exactly once per task.
 *   <li><b>Claim timeout</b> ({@code QueueOptions.claimTimeout}, off by default: a timeout on by
 *       default would redeliver every long task of a consumer that never extends). With it, a
 *       claim that is not extended ({@link io.coord.queue.TaskClaim#extend}) within its timeout
 *       is taken over by another consumer, so a stuck consumer that still heart-beats does not
 *       keep its task forever: the task is redelivered (not an attempt), the stale claimer's
 *       endings and extends are refused on the server ({@code ClaimLostException}, nothing
 *       changed), and its lease goes LOST with a cause saying "claim timed out". A
 *       {@link io.coord.queue.TaskWorker} extends its running handlers' claims every third of
 *       the timeout until a handler has run past {@code maxProcessing}. See "Claim timeouts" below.
 *   <li><b>Order.</b> Higher lanes first, FIFO by enqueue sequence within a lane. A delayed task
 *       ({@code notBefore}) and a task waiting out a retry backoff are passed over until ready;
 *       a retried task keeps its sequence, so it is ahead of later tasks once ready. One consumer
 *       sees strict order; several consumers each pick among about as many ready tasks as there
 *       are consumers, so they do not all race for the head. Partitioned
 *       ({@code QueueOptions.partitions} N &gt; 1): FIFO within a partition; across partitions a
 *       consumer claims in the partition whose first claimable task is oldest by lane, then by
 *       the task node's czxid (ZooKeeper's global order of creation), so one consumer sees global
 *       enqueue order exactly, several consumers close to it (see "Partitions" below).
 *   <li><b>Retries.</b> {@code fail(reason)} counts an attempt; with retries left the task is
 *       claimable again after an exponential backoff (base, cap, jitter in {@code QueueOptions}),
 *       otherwise it moves to the dead letters in the same transaction, with the reason. A
 *       consumer's death or {@code release()} is not an attempt.
 *   <li><b>Max deliveries</b> ({@code QueueOptions.maxDeliveries}, default 10, 0 turns it off). A
 *       task whose deliveries ended without {@code complete()} or {@code fail()} (its consumer
 *       died, its claim timed out, or it was released) that many times is not handed out again:
 *       the next consumer about to claim it moves it to the dead letters (claim, then the poison
 *       move below, so exactly once among racing consumers), payload intact, its key deleted as
 *       at the last failure, with the last error "delivered N times without an ending (consumers
 *       died or their claims timed out; maxDeliveries is M)". So a task that always hangs or
 *       always kills its consumer ends, instead of costing a claim or session timeout forever.
 *       Deliveries ended by {@code fail()} are counted by {@code maxRetries}, not here. The dead
 *       letter's {@code deliveries} counts the claim that moved it; {@code requeue} starts the
 *       task afresh (attempts and deliveries 0).
 *   <li><b>Idempotent enqueue, with a window.</b> With a key, an enqueue does nothing while a
 *       task with that key is pending or processing, nor for
 *       {@link io.coord.queue.QueueOptions#idempotencyWindow()} (default 1 h) after it completed,
 *       and returns that task's id; {@link io.coord.queue.TaskQueue#submit} also says which
 *       ({@link io.coord.queue.EnqueueResult}: {@code ADDED}, {@code ALREADY_QUEUED},
 *       {@code ALREADY_COMPLETED}). So it is safe to retry after a ConnectionLoss even once the
 *       task is done: the retry gets the original id, never a duplicate. The completion rewrites
 *       the key as a completed record in its own transaction (exactly-once); producers forget
 *       completions past the window (by ZooKeeper's clock: node times) and past
 *       {@link io.coord.queue.QueueOptions#idempotencyKeys()} (default 5 000, oldest completion
 *       first) in a bounded sweep on their own thread. Dead-lettering releases the key: a retry
 *       then adds a new task. {@code enqueueAll} is one transaction: all or nothing.
 *   <li><b>Bad input is refused before anything is written</b>
 *       ({@link io.coord.queue.TaskRejectedException}): unserializable payload, payload over
 *       {@code maxTaskBytes} (64 KiB by default), negative {@code maxRetries}, unknown lane,
 *       malformed key, batch over the transaction limit. A full queue raises
 *       {@link io.coord.queue.QueueFullException}. Nothing else in the queue is affected.
 *   <li><b>A task that cannot be decoded is dead-lettered, not left to sit.</b> Bytes that are not
 *       a task (a bad hand edit, a producer bug) or a payload that is not the queue's type: the
 *       first consumer that reads it moves it to the dead letters, in {@code claim()} (a worker
 *       that takes its next task with a completion goes through {@code claim()} for it), exactly
 *       once among racing consumers (claim, then one transaction). Bytes that are not a task
 *       move unchanged, a payload of another type with the decode error as its last error; repair
 *       and {@code requeue}. It is never handed to a handler and costs no attempt.
 *   <li><b>Operator views never go blind.</b> {@code stats()}, {@code tasks()} and
 *       {@code deadLetters()} decode the good nodes and list each bad one as an
 *       {@link io.coord.queue.UndecodableTask} (node, bytes, error) in
 *       {@link io.coord.queue.TaskList#undecodable()} and {@link io.coord.queue.QueueStats#undecodable()}.
 * </ul>
 *
 * <h2>Async calls</h2>
 * {@link io.coord.queue.TaskQueue#enqueueAsync(Object, io.coord.queue.TaskSpec, java.util.concurrent.Executor)},
 * {@link io.coord.queue.TaskQueue#claimAsync(java.time.Duration, java.util.concurrent.Executor)},
 * {@link io.coord.queue.TaskClaim#completeAsync(java.util.concurrent.Executor)} and
 * {@link io.coord.queue.TaskClaim#failAsync(String, java.util.concurrent.Executor)} return a
 * {@code CompletableFuture} at once, with the sync calls' writes and guarantees. Each completes on
 * the executor given (without one: {@link java.util.concurrent.ForkJoinPool#commonPool()}), never on
 * ZooKeeper's or Coord's event thread.
 * <ul>
 *   <li><b>No thread waits per pending call.</b> An enqueue is sent with ZooKeeper's async API;
 *       calls made one after another are sent in that order on the one session, so their tasks'
 *       sequence numbers, and the order consumers see within a lane and partition, follow it. A
 *       pending claim is an entry in the instance's watched cache, woken by its changes and by a
 *       timer; each wake-up tries once: the claim transaction sent with the async API where the
 *       cache has the head task (the callback thread does not wait for it), else the sync claim's
 *       try on the client's callback thread, where a {@code failAsync} and the reads that settle a lost reply or a duplicate key
 *       also run. A {@code completeAsync} is sent with the async API from the calling thread, so
 *       the completions of many claims are in flight together; only an answer other than
 *       "committed" is settled on the callback thread. While it is in flight, the claim's other
 *       endings, {@code extend} and {@code release} throw {@link java.lang.IllegalStateException}
 *       and {@code close()} leaves the claim to the completion's outcome.
 *   <li><b>Failures</b> are the sync calls' exceptions, in the future:
 *       {@link io.coord.queue.TaskRejectedException} and {@link io.coord.queue.QueueFullException}
 *       (nothing written), {@link io.coord.ConnectionLostException} after a lost reply only where
 *       the sync call throws it, {@link io.coord.queue.ClaimLostException} for an ending whose claim
 *       is gone (its session ended: the task is back in the queue). A claim not made within its
 *       timeout ({@link System#nanoTime()}) fails with {@link io.coord.CoordTimeoutException}. Null
 *       arguments (and a negative claim timeout, a closed queue) throw at once.
 *   <li><b>Cancelling withdraws.</b> An enqueue cancelled before it was sent sends nothing; after,
 *       its task (and key) is deleted when the create's reply lands unless a consumer claimed it
 *       first, so a cancel that wins leaves no node. A cancelled claim's waiter is withdrawn at
 *       once; a claim that lands in a race with the cancel is released at once (claimable again
 *       right away, attempts unchanged). A cancelled ending already sent is not withdrawn.
 *       Cancelling a completed future does nothing.
 *   <li><b>A pending claim holds nothing</b>, so it waits through SUSPENDED and a session's end and
 *       claims on the session of the moment.
 * </ul>
 *
 * <h2>Node layout</h2>
 * <pre>
 * /queues/{name}/tasks/task-0000000042          persistent-sequential, JSON: payload, lane, enqueuedAt,
 *                                               notBefore, attempts, deliveries, maxRetries, key,
 *                                               lastError, claim (name of the latest claim node)
 * /queues/{name}/claims                         its data is written (empty) only to read ZooKeeper's time (claim timeouts)
 * /queues/{name}/claims/task-0000000042~9f3c…   ephemeral: one claim; unique name per claim; JSON: task, owner,
 *                                               claimedAt, timeoutMillis (with a claim timeout)
 * /queues/{name}/dead/task-0000000042           persistent: the dead letter (the task's JSON + deadAt; for a task
 *                                               whose bytes were not a task, those bytes unchanged)
 * /queues/{name}/tasks/task-{11 chars}-0000000043  an unkeyed task: one plain create, named with 64 bits
 *                                               (URL-safe Base64; a JVM-wide counter from a random start)
 *                                               that find it after a lost reply
 * /queues/{name}/keys/k-{key} | a-{uuid}        persistent: the key of a keyed task or a batch's task, exists while
 *                                               the task does; a caller key (k-) then stays as "completed:task-…"
 *                                               for the window
 * /queues/{name}/completed/c-0000000007         persistent-sequential: one remembered completion ("k-{key} task-…"),
 *                                               in completion order: what the sweep lists, never keys/
 * </pre>
 * Nothing else belongs there. {@link io.coord.queue.TaskQueue#open} refuses a path that holds
 * Curator {@code DistributedQueue} items ({@code queue-{seq}}, directly under the root) with
 * {@link io.coord.ForeignNodesException} naming them, before creating anything: neither library
 * would deliver the other's work (docs/MIGRATING.md). Any other node the queue did not make (a
 * typo'd child of {@code tasks/}, another tool's node) is never taken for a task or a claim: it is
 * logged at WARN once and listed by {@link io.coord.queue.QueueStats#foreign()}.
 * Transactions:
 * <pre>
 * enqueue   create tasks/task-{unique}- SEQUENTIAL   (unkeyed: sent once; after a lost reply, list tasks/ for the name)
 *           multi(create keys/…, create tasks/task- SEQUENTIAL)   (keyed, and each task of a batch)
 * claim     multi(create claims/{task}~{unique} EPHEMERAL, setData tasks/{task} @ version read)
 * complete  multi(delete claim, delete tasks/{task} @ version claimed,
 *                 setData keys/k-… "completed:{task}" + create completed/c- SEQUENTIAL | delete keys/a-…, [your ops])
 * forget    multi(delete completed/c-…, delete keys/k-… @ version read)   (the sweep; past the bound or the window)
 * fail      multi(delete claim, setData tasks/{task} @ version claimed: attempts+1, notBefore, lastError)
 * dead      multi(delete claim, delete tasks/{task} @ version claimed, create dead/{task}, delete keys/…)
 * requeue   multi(delete dead/{task} @ version, create keys/…, create tasks/task- SEQUENTIAL)
 * poison    claim: multi(create claims/{task}~{unique} EPHEMERAL, setData tasks/{task} = same bytes @ version read)
 *           then:  multi(delete claim, delete tasks/{task} @ version claimed, create dead/{task}, delete keys/…)
 * delivered the claim above, then the poison move (a payload of another type, or a task past maxDeliveries)
 * out
 * extend    setData claims/{claim} @ version (timeoutMillis = the extension)
 * take over delete claims/{claim} @ version read, once past its deadline (see below)
 * </pre>
 * A poison task's key is the one its record names, or, for bytes that name none, the key node with
 * the task's czxid (made in the same enqueue transaction; a batch's siblings' keys struck out); if
 * that leaves no single key, the key node stays. If {@code dead/{task}} exists already (made by
 * hand), the task stays where it is (WARN once, still listed as undecodable) until that name is free.
 * The claim's version check makes one of several racing consumers win and fences every earlier
 * claimer out. The claim token is the claim node's czxid, which equals the claim transaction's
 * zxid, so it needs no extra read. Complete and fail delete the claim node inside their own
 * transaction (the delete also fences: it fails if the claim is gone) and tell the claim's lease
 * it was released that way, so one commit settles a task and no separate delete follows; claim
 * names are never reused, so a delete can only ever hit our own node.
 * A {@link io.coord.queue.TaskWorker} completes a task and claims its next one in one transaction.
 *
 * <h2>Partitions</h2>
 * {@code QueueOptions.partitions(N)} (1..256, default 1) spreads a queue over N directories, each
 * laid out as above with its own depth cap, listing and watches, so depth scales with N:
 * <pre>
 * /queues/{name}                                       data "partitions=N", written when the queue is made
 * /queues/{name}/p{i}/tasks/task-p{i}-0000000042       keyed, or of a batch
 * /queues/{name}/p{i}/tasks/task-p{i}-{11 chars}-0000000043   unkeyed
 * /queues/{name}/p{i}/claims|dead|keys|completed/…     as in one directory
 * </pre>
 * A task id names its partition ({@link io.coord.queue.TaskId#partition()}). A keyed task goes to
 * the partition of its key's hash ({@code String.hashCode}, spread, modulo N), so its idempotency
 * record is where a retry looks; an unkeyed task round-robin; a batch to one partition. Opening a
 * queue with a count other than the recorded one is refused ({@link io.coord.ConfigurationException}
 * naming both counts; a queue without a record is unpartitioned, 1); {@code QueueOptions.AS_RECORDED}
 * opens it with the server's count. Every guarantee above holds per partition; {@code stats()},
 * {@code tasks()}, {@code deadLetters()}, {@code requeueAll()} and {@code purgeDeadLetters()}
 * aggregate them, {@code requeue(id)} finds the partition in the id.
 * <p><b>How close to global FIFO.</b> Claims compare the partitions' first claimable tasks from the
 * consumer's watched indexes (no reads) by lane, then czxid, and claim in the oldest partition first;
 * a completion takes its next task in the same transaction only while its partition still has the
 * oldest head. One consumer therefore claims in global enqueue order (tested). Several consumers
 * each spread over the first few ready tasks of the oldest partition and see the others' claims a
 * watch event late, so claims interleave: measured with 8 partitions, batches of 200 and 16
 * claiming threads in 4 processes (two kill -9'd) over 200 000 tasks, 99 % of first claims came
 * within 1 332 places of their enqueue position (mean 83, the farthest 5 487) and 0.046 % of all
 * pairs were claimed in the opposite order ({@code PartitionedKillIT} holds them to 2 000 places
 * and 1 %). Tasks given back by a dead consumer
 * come later by its session timeout, as in one directory.
 *
 * <h2>Claim timeouts</h2>
 * A claim's deadline lives on the server: its node's {@code mtime} (the server's time of the claim
 * or of the last extend) plus the {@code timeoutMillis} in its data. A consumer with a timeout
 * configured looks at a claim once it has not seen the claim node written for its own timeout
 * (local {@code System.nanoTime()} only decides when to look). The look reads the claim node
 * (mtime {@code M}, version {@code v}), then writes the {@code claims} node to learn the server's
 * time now ({@code N}, that write's mtime, later than the read), and if {@code N - M} exceeds the
 * claim's timeout deletes the claim node at version {@code v}: an extend in between wins. The
 * delete fences the old claimer exactly as a session's end would (every ending deletes its claim
 * node first), and the watch then makes the task claimable, ahead of later tasks by its sequence.
 * Looks run on claiming threads (in {@code claim()}, and in a worker between tasks), never on an
 * event thread. <b>Clock assumption:</b> only ZooKeeper timestamps are compared, and they come
 * from the leader's wall clock; keep the servers' clocks in sync, since after a leader change
 * their skew shortens or lengthens a deadline by that much. Set the same timeout on every
 * consumer: a claim made without one has no deadline, and only consumers with one take over.
 *
 * <h2>No listing per claim; scale</h2>
 * Consumers keep the ordered set of tasks from persistent recursive watches on {@code tasks/} and
 * {@code claims/} (re-registered after a reconnect, followed by one listing and a read of every task, since
 * events during the disconnection were missed). Until that read is done a consumer back from a
 * disconnection claims nothing (at most 10 s after the reconnect; past that it claims by what it
 * has read): it would otherwise take a task enqueued after the reconnect ahead of older ones it
 * has not read yet, and order would hold only on a steady connection. They read a task once when it is created and
 * again only when its claim ends with the task still there; a claim node's name says which task it
 * holds, so claims cost no reads. Tested sizes: 2 000 tasks with consumers killed and expired
 * mid-task; the default depth cap of 10 000 tasks (a listing of about 190 KB); 200 000 tasks over
 * 8 partitions with consumers killed. The cap (per partition) may be raised to 25 000: a listing of
 * the tasks node must stay under ZooKeeper's 1 MB reply limit ({@code jute.maxbuffer}), which names
 * like {@code task-0000000042} reach at about 55 000 children (measured here: a listing of 55 000
 * such names worked, 55 500 failed with ConnectionLoss) and the longest names, an unkeyed task's in a
 * partition ({@code task-p255-{11 chars}-0000000042}, about 36 bytes listed), at about 29 000; past
 * it, reading the queue fails, and that is why an enqueue past the cap is refused. More depth
 * comes from partitions (docs/BENCHMARKS.md has claim+complete at depth 1 000 000 and the memory a
 * consumer's index takes). The cap is exact once the queue is half full (the depth is read before every
 * enqueue); below half, a producer re-reads it every 100 enqueues, so only a crowd of more than
 * cap/200 producers enqueueing at once could overshoot, by at most 100 tasks each (200 for
 * {@code enqueueAsync}, whose calls keep being sent while its re-read is in flight, so the
 * pipeline does not drain for it). Dead letters have no cap: purge them; {@code stats()} counts them without a
 * listing, but listing them fails past the same limit.
 * Remembered completions are bounded by {@code idempotencyKeys}: the sweep lists {@code completed/}
 * (about 16 bytes a name); {@code keys/} is listed only by {@code stats()}, at the key's length
 * plus 6 bytes for each live or remembered key. A keyed enqueue costs one more read (the size of
 * {@code completed/}), and one write when it meets a completed key (ZooKeeper's "now").
 *
 * <h2>Failure semantics</h2>
 * <ul>
 *   <li><b>SUSPENDED</b>: open claims become UNCERTAIN ({@code checkValid()} throws); waiting in
 *       {@code claim()} goes on; endings still try, and the server's claim check decides.
 *   <li><b>LOST</b> (session expired): open claims are LOST; their tasks go back to PENDING for
 *       other consumers; {@code complete}/{@code fail} throw {@code ClaimLostException}. The
 *       watch is re-registered on the new session.
 *   <li><b>ConnectionLoss</b> on an enqueue is indeterminate: call it again; a keyed or batched
 *       enqueue recognizes its own key, an unkeyed one its own node by the unique part of its name
 *       (the enqueue itself looks, once, and returns the id if the task is there). A keyed one whose task is already done finds it too,
 *       within the idempotency window ({@code ALREADY_COMPLETED}); an unkeyed one, or one whose
 *       task was dead-lettered, cannot tell "done" from "never added".
 *   <li><b>A lost reply to an ending</b>: endings are sent once, outside Curator's retry (which,
 *       on a new session, would fail at the claim and report a committed ending as refused). The
 *       ending then looks at its claim node, the session, the task and its dead letter: committed
 *       returns as success; not committed throws {@link io.coord.queue.ClaimLostException} (claim
 *       gone) or {@code ConnectionLostException} (claim still held, or no look possible: call it
 *       again, and an earlier commit is recognized). Where the claim's session has ended and
 *       nothing tells (a completed task is gone whoever completed it), it throws
 *       {@link io.coord.queue.OutcomeUnknownException}: not retryable, and at most one ending of
 *       the task committed.
 *   <li><b>Interrupt</b>: {@code claim()} throws {@code InterruptedException} and leaves no claim
 *       behind; endings and enqueues are not waits: an interrupt surfaces as a
 *       {@code CoordException} with the flag kept.
 *   <li>Times ({@code notBefore}, backoff, ages) use the wall clock of the process that wrote
 *       them ({@code QueueOptions.clock}); keep producers' and consumers' clocks in sync.
 * </ul>
 *
 * <p>Why the queue has exception types of its own, not core's: each names the queue's own values
 * and asks for its own action. {@link io.coord.queue.ClaimLostException} is a
 * {@link io.coord.LockLostException} that names the task (stop working on it);
 * {@link io.coord.queue.QueueFullException} is a {@link io.coord.TooManyChildrenException} with
 * the queue's cap (back off); {@link io.coord.queue.TaskRejectedException} names what is wrong with
 * a task at enqueue (fix it); {@link io.coord.queue.OutcomeUnknownException} says an ending's
 * outcome cannot be known any more (reconcile downstream). All are {@link io.coord.CoordException}s.
 */
package io.coord.queue;
