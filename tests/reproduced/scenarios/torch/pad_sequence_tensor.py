# expect: pytorch/pack-padded-invalid-lengths
# A collate function passes the sample's missing field (None) instead of a list of tensors.
from torch.nn.utils.rnn import pad_sequence

sample = {"tokens": None}
padded = pad_sequence(sample["tokens"], batch_first=True)
