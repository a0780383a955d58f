package io.coord.membership;

import io.coord.ConflictException;

/**
 * A join was refused because the member id is already held: by another live session, or by
 * another {@link Membership} handle of the same client. Nothing was created. Final for this id
 * while the holder lives; a holder that crashed goes away when the server expires its session.
 */
public class MemberIdTakenException extends ConflictException {
    private static final long serialVersionUID = 1L;

    private final String memberId;
    private final long holderSession;

    public MemberIdTakenException(String message, String memberId, long holderSession) {
        super(message);
        this.memberId = memberId;
        this.holderSession = holderSession;
    }

    public String memberId() {
        return memberId;
    }

    /** The session holding the id. */
    public long holderSession() {
        return holderSession;
    }
}
