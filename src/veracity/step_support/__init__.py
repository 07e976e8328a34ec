"""What the graph's steps share, apart from the steps themselves (`veracity.nodes` holds one module per step).

* `names`: every node's name, and the destinations each router may return;
* `attempts`: the retry protocol of a gated step and its gate;
* `payload`: a model's raw answer validated against its contract;
* `tracing`: a step's timing and its trace record; `model_answer`: the record of one model answer;
* `assembly`: the final report built from a run's state (by `finalize_report` and the deadline);
* `deadline`: the check's total deadline, kept inside the graph;
* `both_ways`: a coroutine node given a synchronous body, for `invoke` and `stream`.
"""
