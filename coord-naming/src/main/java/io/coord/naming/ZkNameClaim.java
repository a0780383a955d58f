package io.coord.naming;

import io.coord.FencingToken;
import io.coord.Lease;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/** A held name: its token, its lease (ephemeral claims) and the release step. */
final class ZkNameClaim implements NameClaim {
    private final String name;
    private final String owner;
    private final boolean persistent;
    private final FencingToken token;
    private final Lease lease;
    private final Runnable release;
    private final AtomicBoolean closed = new AtomicBoolean();

    ZkNameClaim(String name, String owner, boolean persistent, FencingToken token, Lease lease, Runnable release) {
        this.name = name;
        this.owner = owner;
        this.persistent = persistent;
        this.token = token;
        this.lease = lease;
        this.release = release;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String owner() {
        return owner;
    }

    @Override
    public boolean persistent() {
        return persistent;
    }

    @Override
    public FencingToken token() {
        return token;
    }

    @Override
    public Optional<Lease> lease() {
        return Optional.ofNullable(lease);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (lease != null) {
            // RELEASED, lease node deleted, then the lease's release step deletes the owner node
            // if it is still ours. After LOST the step has already run.
            lease.close();
        } else {
            release.run();
        }
    }

    @Override
    public String toString() {
        return "NameClaim[" + name + " by " + owner + (persistent ? " persistent" : " " + lease.state()) + " " + token + "]";
    }
}
