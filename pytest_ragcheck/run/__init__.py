"""Calling the user's retriever or pipeline: what the object is (plain function, LangChain,
LlamaIndex or Haystack), the depth it is asked for, one call over a query or a batch, sync or
async, concurrency, timeouts and latency, what a hit and its id are, a pipeline's answer and
contexts, and the run's facts (ids that match nothing, short rankings)."""
