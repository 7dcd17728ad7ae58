"""A step Dagster queued without the pool's free slot (the race in its claim) gets the slot on the next tick."""

import dagster as dg

from memory_pipeline.defs.pools import assign_stranded_steps


def test_a_step_queued_beside_a_free_slot_gets_it_and_a_taken_slot_is_left_alone(tmp_path):
    with dg.instance_for_test(temp_dir=str(tmp_path)) as instance:
        storage = instance.event_log_storage
        storage.set_concurrency_slots("vector_store", 1)
        # the race's state: the step queued with "assign now" off while the slot is free
        storage.add_pending_step("vector_store", "run-a", "observation_index", should_assign=False)
        assert not storage.check_concurrency_claim("vector_store", "run-a", "observation_index").is_assigned
        assert assign_stranded_steps(storage, ("vector_store",)) == ["vector_store"]
        assert storage.check_concurrency_claim("vector_store", "run-a", "observation_index").is_assigned
        # the slot is spoken for now: a second waiting step is not given it
        storage.add_pending_step("vector_store", "run-b", "observation_index", should_assign=False)
        assert assign_stranded_steps(storage, ("vector_store",)) == []
        assert not storage.check_concurrency_claim("vector_store", "run-b", "observation_index").is_assigned
