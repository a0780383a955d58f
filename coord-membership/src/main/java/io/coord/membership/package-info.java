/**
 * Cluster membership: a live, versioned view of who is up.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>A member id is held by one session at a time: {@link io.coord.membership.Group#join}
 *       refuses an id another live session (or another handle of the same client) holds, with
 *       {@link io.coord.membership.MemberIdTakenException} naming the id and the holder's session.
 *       Bad input (id, metadata that is not JSON-serializable or over the limit) is refused
 *       before anything is written.
 *   <li>A {@link io.coord.membership.Membership} keeps its member in the group: if its node goes
 *       (session expired, node deleted) it creates a new one, on the new session if there is
 *       one, and tells its listeners ({@code onNodeLost}, then {@code onRejoined}).
 *   <li>A {@link io.coord.membership.GroupView} is immutable and carries a version, the highest
 *       zxid it reflects; one {@code Group} object never shows an older version than it showed
 *       before (after a new session it syncs before reading), and the version moves with every
 *       change it reports. Views are snapshots except while a group changes faster than a read
 *       completes (see {@link io.coord.membership.GroupView#version()}).
 *   <li>Listeners get the exact differences between consecutive views, also across reconnects
 *       and session expiries (the view is then rebuilt from a fresh read): replaying their calls
 *       onto the first view gives the current one.
 *   <li>A member whose process dies is reported left once the server expires its session: within
 *       the session timeout plus the server's tick.
 * </ul>
 *
 * <h2>Node layout</h2>
 * <pre>
 * /groups                          persistent
 * /groups/{group}                  persistent, created by the first join; its pzxid versions views
 * /groups/{group}/{memberId}       ephemeral, JSON metadata (io.coord.Codec, size-checked)
 * </pre>
 * Observers hold one persistent recursive watch on {@code /groups/{group}}, added on the ZooKeeper
 * handle itself so that its events keep their zxid (Curator 5.9.0 passes events on with zxid -1).
 * On an unbroken watch the events are complete and in zxid order, so a change costs each observer
 * O(1) requests whatever the group's size: a departure is a zxid-stamped deletion applied without
 * a read (no request); an arrival or update reads that member only, in the background, and the
 * read's reply, which comes after every earlier event, proves nothing else moved (one request).
 * This is where Coord's "re-read after every event" rule is relaxed, because the event names the
 * server's change exactly; any disconnect, session change or event that does not fit forces a full
 * re-read (list the group, read what changed, one barrier round trip). {@code GroupRequestsIT}
 * counts the requests on the server.
 *
 * <h2>Beside Curator's {@code GroupMember}</h2>
 * Curator 5.9's {@code GroupMember} keeps the same layout (an ephemeral node named by the member
 * id, its payload as raw bytes), so a group may hold both ({@code new GroupMember(curator,
 * "/groups/" + group, id, payload)}):
 * <ul>
 *   <li>A node whose data Coord cannot decode (a {@code GroupMember}'s payload, another program's
 *       node, another metadata type) is a member all the same: it is in every view, with
 *       {@link io.coord.membership.MemberInfo#metadataError()} showing its raw payload, logged at
 *       WARN once per id, and listed by {@code coord members ls}. A Coord member is in
 *       {@code GroupMember.getCurrentMembers()} with its JSON as the payload.
 *   <li>One id, one holder: {@code join} refuses an id a {@code GroupMember} holds
 *       ({@link io.coord.membership.MemberIdTakenException}, naming its session). The other way
 *       round Curator does not refuse: its {@code PersistentNode} writes its payload into the
 *       existing node and keeps it. A Coord member sees its node at a data version it did not write
 *       and leaves (within one view update): {@code LOST} with a {@code MemberIdTakenException}
 *       saying so, its node deleted, and the {@code GroupMember} creates its own. Until then both
 *       processes believe they hold the id; give every member its own id.
 *   <li>A child whose name is not a valid member id cannot be in a view; it is logged at WARN once.
 * </ul>
 *
 * <h2>Failure semantics</h2>
 * <ul>
 *   <li>SUSPENDED: a membership becomes {@code SUSPENDED} (its node may still exist;
 *       {@code update} is refused); a group keeps showing its last view. Same session back: the
 *       membership is confirmed by a round trip and {@code JOINED} again; the group rebuilds its
 *       view.
 *   <li>LOST (session expired): the membership is {@code REJOINING} and re-creates its node on
 *       the client's next session; the group re-adds its watch, syncs, rebuilds its view.
 *   <li>Interrupt: blocking calls ({@code open}, {@code join}, {@code update}, the awaits) throw
 *       {@link java.lang.InterruptedException} and leave nothing half-done behind.
 *   <li>{@link io.coord.membership.Group#awaitMembersAsync}: no thread waits per pending call
 *       (the group offers each installed view to the pending calls; the client's timer ends them
 *       at their nanoTime timeout); completions run on the caller's executor only; cancelling
 *       withdraws the call; closing the group fails pending calls with
 *       {@link java.lang.IllegalStateException}.
 * </ul>
 *
 * <p>Public types: {@link io.coord.membership.Group} (entry), {@link io.coord.membership.Membership}
 * (handle, with its {@code State} and {@code Listener}), {@link io.coord.membership.GroupOptions},
 * {@link io.coord.membership.GroupView} and {@link io.coord.membership.MemberInfo} (values),
 * {@link io.coord.membership.GroupListener}, and {@link io.coord.membership.MemberIdTakenException}
 * (a duplicate id is the one refusal callers act on differently, so it gets a type).
 */
package io.coord.membership;
