package io.coord.naming;

import io.coord.CoordException;

/**
 * A unique name is already claimed by someone else. Names the claimed name and its current owner
 * (as that claimant identified itself), so the message alone says who to ask. Contention is the
 * ordinary outcome of a claim, but a claim either wins or fails, so this is an exception; use
 * {@link UniqueNames#owner} to look before claiming.
 */
public class NameTakenException extends CoordException {
    private static final long serialVersionUID = 1L;

    private final String name;
    private final String owner;

    public NameTakenException(String name, String owner, String detail) {
        super("name \"" + name + "\" is taken by \"" + owner + "\"" + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")"));
        this.name = name;
        this.owner = owner;
    }

    /** The name that was claimed. */
    public String name() {
        return name;
    }

    /** Its current owner, as that claimant identified itself to {@link UniqueNames#open}. */
    public String owner() {
        return owner;
    }
}
