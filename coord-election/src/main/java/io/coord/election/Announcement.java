package io.coord.election;

import io.coord.Codec;

/**
 * What the election node itself holds: the last leader that started acting,
 * {@code {"epoch":<czxid>,"participant":"…"}}. Written by each new leader once, guarded by a check
 * of its own node (so only a leader whose node exists can write it), and never by candidates'
 * joins or leaves. Observers compare {@code epoch} with the lowest candidate's czxid: equal means
 * that leader acts, since the node's mtime. Kept on the election node, not on the leader's, so
 * that the announcement does not wake the candidate watching the leader's node.
 */
record Announcement(long epoch, String participant) {
    static final Codec<Announcement> CODEC = Codec.json(Announcement.class).withLimit(4096);

    Announcement {
        if (epoch <= 0) {
            throw new IllegalArgumentException("announced epoch must be a czxid > 0, got " + epoch);
        }
    }
}
