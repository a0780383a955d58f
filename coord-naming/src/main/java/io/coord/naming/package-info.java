/**
 * Naming recipes: sequential IDs, block (segment) IDs, unique names, and DNS-style service
 * discovery on curator-x-discovery. Four small recipes in one module, so the package has more
 * than the usual six public types: an entry, a handle or an options record, and an exception each.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>{@link io.coord.naming.SequenceIds}: every ID is unique across all clients and all time,
 *       and strictly increasing in real-time order: if one {@code next()} returned before another
 *       (in any client) was called, the later one returns more. IDs are consecutive while only this
 *       recipe writes the counter; an ID is skipped, never repeated, when a write's reply is lost
 *       (the write may have been applied). Holds across leader changes, client crashes, session
 *       expiry, and deletion and re-creation of the counter node or its parents. One node per
 *       name, no matter how many IDs; no 32-bit counter can wrap.</li>
 *   <li>{@link io.coord.naming.BlockIds}: unique across all clients under the same conditions, and
 *       increasing per client. A client that dies leaves the rest of its blocks unused (a gap).</li>
 *   <li>{@link io.coord.naming.UniqueNames}: at most one claimant holds a name at a time; every
 *       other claim fails with {@link io.coord.naming.NameTakenException} naming the owner. A
 *       release deletes only the releasing claim's own node.</li>
 *   <li>{@link io.coord.naming.Discovery}: registered instances are ephemeral (gone when their
 *       session ends) and come back by themselves on the next session; resolvers answer from a
 *       watched cache without a round trip; instances out of service (maintenance or a failing
 *       health check) and instances reported failing are not resolved.</li>
 * </ul>
 *
 * <h2>Why the IDs survive re-creation</h2>
 * ZooKeeper's zxids never go back, across leader changes and across deletion and re-creation of
 * nodes, while data versions and sequence suffixes restart. Every ID is derived from the czxid of
 * its counter node plus a count that is bounded by the number of writes to that node, so every ID
 * is at most (a fixed multiple of) the zxid of the write that issued it, and a re-created node,
 * whose czxid is above every earlier zxid, starts above every ID ever issued. The rules, and why a
 * compare-and-set prepared on an older incarnation can never be used on a newer one, are in
 * {@code IdRule}. The IDs are therefore large: a fresh ensemble's first sequence ID is about
 * 4.3 billion (epoch 1 shifted by 32 bits), and block IDs are that times 65 536.
 *
 * <h2>Node layout</h2>
 * <pre>
 * /ids/{name}/sequence          SequenceIds counter: "seq" (3 bytes); version = writes in this incarnation
 * /ids/{name}/blocks            BlockIds counter: "{next free ID} {tag of the last writer}"
 * /names/{name}                 container
 * /names/{name}/owner           the claim: JSON {owner, claim, persistent, lease}; ephemeral or persistent
 * /names/{name}/_c_{uuid}-lease an ephemeral claim's lease node (protected, unique path)
 * /services/prod/payments/orders                 service orders.payments.prod (labels reversed)
 * /services/prod/payments/orders/_instances/{id} one instance, ephemeral, curator-x-discovery JSON
 * </pre>
 * Counter nodes are created (parents as containers) on first use and again whenever they are
 * found missing. Deleting a counter node (or all of {@code /ids}) is always safe; writing one by
 * hand is not supported: a block counter holding a value it could not have reached, or no value
 * after writes, is rolled over rather than used, but a plausible rewound value cannot be told from
 * a real one. Parents of names and service instances are containers, removed by the server
 * once empty.
 *
 * <h2>Beside Curator and other writers</h2>
 * <ul>
 *   <li><b>IDs</b>: Curator's {@code DistributedAtomicLong} (an 8-byte long in its node) and
 *       {@code SharedCount} / {@code DistributedAtomicInteger} (a 4-byte int) cannot share a counter
 *       with these generators: their IDs are the stored value, Coord's the node's zxid and version,
 *       and either side's write would reset the other's. A generator reads {@code /ids/{name}} and
 *       its counter once before its first write, and a block reservation reads the counter before
 *       every compare-and-set; 4 or 8 bytes there (or any data on {@code /ids/{name}} itself, or
 *       anything but nothing or the mark on the sequence counter) is refused with
 *       {@link io.coord.ForeignNodesException} naming the path, the bytes and the value Curator
 *       reads from them. Nothing is written and nothing is rolled over. The other way round, the
 *       sequence counter's {@code "seq"} is too short for Curator's {@code getLong}/{@code getInt}:
 *       a Curator counter pointed at it fails with "Corrupted data for node" instead of reading 0,
 *       so a mixed fleet never hands out an ID twice. Any other child of {@code /ids/{name}} is
 *       logged at WARN once; {@link io.coord.naming.IdStatus#read} ({@code coord ids show}) lists
 *       all of them.</li>
 *   <li><b>Discovery</b> shares curator-x-discovery's JSON: a plain Curator {@code ServiceDiscovery}
 *       whose base path is a service's node ({@code /services/prod/payments/orders}) and whose
 *       service name is {@code _instances} registers instances Coord resolves, and reads Coord's.
 *       An instance is of the service its node is under, whatever name its JSON carries. An
 *       instance node Coord cannot decode (not JSON, no id, not a valid endpoint) is never
 *       resolved and never dropped in silence: it is logged at WARN once by node name and
 *       listed by {@link io.coord.naming.Discovery#undecodable} ({@code coord services ls}).</li>
 *   <li><b>Unique names</b>: only the owner node decides who holds a name. Any other child of
 *       {@code /names/{name}} than the owner and claims' {@code _c_{uuid}-lease} nodes is logged at
 *       WARN once by a claim, which goes on beside it; an owner node Coord cannot decode fails
 *       {@code claim}, {@code claimPersistent} and {@code owner} with a
 *       {@link io.coord.CodecException} naming it, and is left as it is (nothing is claimed).</li>
 * </ul>
 *
 * <h2>Failure semantics</h2>
 * <ul>
 *   <li><b>SUSPENDED</b> (connection lost): ID calls block and retry, with jittered backoff, until
 *       {@link io.coord.naming.IdOptions#timeout()}, then throw
 *       {@link io.coord.CoordTimeoutException}; {@code BlockIds} keeps handing out its current
 *       block from memory. An ephemeral {@link io.coord.naming.NameClaim}'s lease becomes
 *       UNCERTAIN, and ACQUIRED again if its node is still there after the reconnect. Resolvers
 *       keep answering from their last view.</li>
 *   <li><b>LOST</b> (session expired): ID generators are bound to no session and simply continue on
 *       the new one. An ephemeral claim's lease becomes LOST and the name is free for others;
 *       claim again. Registered instances vanish with the session and are registered again by
 *       Curator when the client has its new session.</li>
 *   <li><b>Interrupt</b>: every blocking call declares {@link java.lang.InterruptedException} and
 *       never swallows it. An interrupted {@code next()} may have consumed an ID (a gap). An
 *       interrupted claim leaves nothing claimed: its half-made nodes are deleted, or die with the
 *       session.</li>
 *   <li><b>Indeterminate writes</b> (ConnectionLoss after sending): a sequence write retried by
 *       Curator may have been applied twice (a gap); a block reservation or a claim recognises its
 *       own write afterwards by the unique tag or claim id it wrote, so nothing is lost and nothing
 *       is doubled.</li>
 *   <li><b>Async</b> ({@link io.coord.naming.SequenceIds#nextAsync(java.util.concurrent.Executor)}):
 *       the same write and the same guarantees as {@code next()}, no thread parked per pending
 *       call; SUSPENDED and LOST are retried until the timeout (on {@code nanoTime}, backoff on
 *       the client's timer), then the future fails with {@link io.coord.CoordTimeoutException}.
 *       It completes on the caller's executor (default {@code ForkJoinPool.commonPool()}), never
 *       on an event thread. Cancelling it sends nothing more; a write already sent is a gap, and
 *       no node is left behind.</li>
 * </ul>
 *
 * <h2>Bad input</h2>
 * Names are validated before anything is sent: ID and claim names are one path segment
 * ({@link io.coord.InvalidNameException}); service names are DNS-style labels, and instances are
 * refused with {@link io.coord.naming.InvalidInstanceException} for a {@code /} in the name, a
 * duplicate id, a port outside 1–65535 or a payload that is not a JSON object (RELIABILITY.md row
 * 31).
 *
 * <p>Why naming has exception types of its own, not core's: {@link io.coord.naming.NameTakenException}
 * names the current owner of a claimed name and {@link io.coord.naming.InvalidInstanceException}
 * a discovery instance's bad field, values only this module knows; a caller acts on a taken name
 * (pick another, or wait) unlike any other refusal. Both are {@link io.coord.CoordException}s, so a
 * caller that catches core's types still catches them.
 */
package io.coord.naming;
