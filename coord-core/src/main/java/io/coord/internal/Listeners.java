package io.coord.internal;

import com.google.common.util.concurrent.MoreExecutors;
import io.coord.Registration;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listener dispatch with the contract Coord's listener interfaces promise: each registration has
 * its own executor, wrapped so that its calls run one at a time and in order; a throwing listener
 * is logged and affects nobody else; nothing runs on the caller's thread.
 */
public final class Listeners<L> {
    private static final Logger LOG = LoggerFactory.getLogger(Listeners.class);

    private record Entry<L>(L listener, Executor executor) {
    }

    private final CopyOnWriteArrayList<Entry<L>> entries = new CopyOnWriteArrayList<>();

    public Registration add(L listener, Executor executor) {
        return addThen(listener, executor, null);
    }

    /**
     * Adds a listener and, if {@code first} is not null, hands it {@code first} through the
     * listener's own sequential executor (for "you registered late: here is the final event").
     */
    public Registration addThen(L listener, Executor executor, Consumer<? super L> first) {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(executor, "executor");
        Entry<L> entry = new Entry<>(listener, MoreExecutors.newSequentialExecutor(executor));
        entries.add(entry);
        if (first != null) {
            dispatch(entry, first);
        }
        return () -> entries.remove(entry);
    }

    /**
     * Adds a listener, then asks {@code afterAdd} (once the listener is in, so no event falls between
     * the two) whether it must be handed a first call through its own sequential executor; null: none.
     */
    public Registration addThenAsk(L listener, Executor executor, java.util.function.Supplier<Consumer<? super L>> afterAdd) {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(executor, "executor");
        Entry<L> entry = new Entry<>(listener, MoreExecutors.newSequentialExecutor(executor));
        entries.add(entry);
        Consumer<? super L> first = afterAdd.get();
        if (first != null) {
            dispatch(entry, first);
        }
        return () -> entries.remove(entry);
    }

    /** Hands {@code call} to every listener's executor. */
    public void forEach(Consumer<? super L> call) {
        for (Entry<L> entry : entries) {
            dispatch(entry, call);
        }
    }

    private void dispatch(Entry<L> entry, Consumer<? super L> call) {
        try {
            entry.executor().execute(() -> {
                try {
                    call.accept(entry.listener());
                } catch (RuntimeException | Error e) {
                    LOG.warn("listener {} threw; other listeners are unaffected", entry.listener(), e);
                }
            });
        } catch (RuntimeException rejected) {
            LOG.warn("executor of listener {} rejected an event", entry.listener(), rejected);
        }
    }

    public void clear() {
        entries.clear();
    }

    public int size() {
        return entries.size();
    }
}
