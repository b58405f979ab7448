# stmatrix, registers -> shared; m8n8 .b16 needs sm_90 (PTX 7.8)
STSM_X1_B16                7.8 sm90     shape=m8n8 num=1 trans=0 bits=16 regs=1      stmatrix.sync.aligned.m8n8.x1.shared.b16 [$0:a32], $1:vec;
STSM_X2_B16                7.8 sm90     shape=m8n8 num=2 trans=0 bits=16 regs=2      stmatrix.sync.aligned.m8n8.x2.shared.b16 [$0:a32], $1:vec;
STSM_X4_B16                7.8 sm90     shape=m8n8 num=4 trans=0 bits=16 regs=4      stmatrix.sync.aligned.m8n8.x4.shared.b16 [$0:a32], $1:vec;
STSM_X1_T_B16              7.8 sm90     shape=m8n8 num=1 trans=1 bits=16 regs=1      stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [$0:a32], $1:vec;
STSM_X2_T_B16              7.8 sm90     shape=m8n8 num=2 trans=1 bits=16 regs=2      stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [$0:a32], $1:vec;
STSM_X4_T_B16              7.8 sm90     shape=m8n8 num=4 trans=1 bits=16 regs=4      stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [$0:a32], $1:vec;
# b8: the shape is m16n8 and .trans is required (PTX 8.6, sm_100a class)
STSM_M16N8_X1_T_B8         8.6 b8matrix shape=m16n8 num=1 trans=1 bits=8 regs=1      stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [$0:a32], $1:vec;
STSM_M16N8_X2_T_B8         8.6 b8matrix shape=m16n8 num=2 trans=1 bits=8 regs=2      stmatrix.sync.aligned.m16n8.x2.trans.shared.b8 [$0:a32], $1:vec;
STSM_M16N8_X4_T_B8         8.6 b8matrix shape=m16n8 num=4 trans=1 bits=8 regs=4      stmatrix.sync.aligned.m16n8.x4.trans.shared.b8 [$0:a32], $1:vec;
