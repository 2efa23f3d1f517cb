#!/usr/bin/python3
"""What tqdm 4.64.1 (Debian's python3-tqdm) prints for the cases of
data/progress_test.cc: run with Debian's /usr/bin/python3."""
from tqdm import tqdm

print(repr(tqdm.format_meter(422, 938, 6.02, postfix="loss=0.412")))
print(repr(tqdm.format_meter(2, 10, 4, prefix="Epoch 1")))
print(repr(tqdm.format_meter(5, None, 3729)))
print(tqdm.format_num(0.5), tqdm.format_num(1e-05), tqdm.format_num(97.2531))
print(repr(tqdm.format_meter(100, 100, 50)))
# Output (2026-11-27):
# ' 45%|████▍     | 422/938 [00:06<00:07, 70.10it/s, loss=0.412]'
# 'Epoch 1:  20%|██        | 2/10 [00:04<00:16,  2.00s/it]'
# '5it [1:02:09, 745.80s/it]'
# 0.5 1e-5 97.3
# '100%|██████████| 100/100 [00:50<00:00,  2.00it/s]'
