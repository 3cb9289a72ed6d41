# expect: pytorch/pack-padded-invalid-lengths
# A collate function called on an empty batch.
from torch.nn.utils.rnn import pad_sequence

batch = []
padded = pad_sequence(batch, batch_first=True)
