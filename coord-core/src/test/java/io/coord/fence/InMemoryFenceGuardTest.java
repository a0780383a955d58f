package io.coord.fence;

class InMemoryFenceGuardTest extends FenceGuardContractTest {
    @Override
    FenceGuard newGuard() {
        return new InMemoryFenceGuard();
    }
}
