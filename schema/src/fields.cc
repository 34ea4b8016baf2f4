#include "ibpulse/schema/fields.h"

#include <algorithm>
#include <array>

namespace ibpulse::schema {
namespace {

constexpr Field F(Attribute attribute, std::string_view name, uint16_t bit_offset, uint8_t width,
                  SelectMask select, uint8_t select_bit, uint8_t scale, Unit unit,
                  Requires requires_capability) {
  return Field{attribute, name, bit_offset,         width, select, select_bit,
               scale,     unit, requires_capability};
}

using enum Attribute;
using enum Unit;
using enum Requires;

// RS-FEC layout rows: the fields whose CounterSelect bits no source here gives (libibmad has
// the offsets, not the bits) are never cleared selectively (SelectMask::kNone).
constexpr Field R(std::string_view name, uint16_t bit_offset, uint8_t width, Unit unit) {
  Field f = F(Attribute::kPortExtendedSpeedsCounters, name, bit_offset, width, SelectMask::kNone, 0,
              1, unit, Requires::kNothing);
  f.layout = Layout::kRsFec;
  return f;
}

// Layouts: IBA vol. 1 16.1.3 and 16.1.4, checked field by field against libibmad's tables
// (schema_fields_test). QP1Dropped is bytes 20-21 of PortCounters: libibmad v44 decodes it
// from VL15Dropped's bytes 22-23. PortCountersExtended's CounterSelect2 is 32 bits at byte 4;
// PortExtendedSpeedsCounters' CounterSelect is 64 bits at byte 8 in both its layouts.
constexpr std::array kFields = {
    // PortCounters
    F(kPortCounters, "SymbolErrorCounter", 32, 16, SelectMask::kCounterSelect, 0, 1, kEvents,
      kNothing),
    F(kPortCounters, "LinkErrorRecoveryCounter", 48, 8, SelectMask::kCounterSelect, 1, 1, kEvents,
      kNothing),
    F(kPortCounters, "LinkDownedCounter", 56, 8, SelectMask::kCounterSelect, 2, 1, kEvents,
      kNothing),
    F(kPortCounters, "PortRcvErrors", 64, 16, SelectMask::kCounterSelect, 3, 1, kEvents, kNothing),
    F(kPortCounters, "PortRcvRemotePhysicalErrors", 80, 16, SelectMask::kCounterSelect, 4, 1,
      kEvents, kNothing),
    F(kPortCounters, "PortRcvSwitchRelayErrors", 96, 16, SelectMask::kCounterSelect, 5, 1, kEvents,
      kNothing),
    F(kPortCounters, "PortXmitDiscards", 112, 16, SelectMask::kCounterSelect, 6, 1, kEvents,
      kNothing),
    F(kPortCounters, "PortXmitConstraintErrors", 128, 8, SelectMask::kCounterSelect, 7, 1, kEvents,
      kNothing),
    F(kPortCounters, "PortRcvConstraintErrors", 136, 8, SelectMask::kCounterSelect, 8, 1, kEvents,
      kNothing),
    F(kPortCounters, "LocalLinkIntegrityErrors", 152, 4, SelectMask::kCounterSelect, 9, 1, kEvents,
      kNothing),
    F(kPortCounters, "ExcessiveBufferOverrunErrors", 156, 4, SelectMask::kCounterSelect, 10, 1,
      kEvents, kNothing),
    F(kPortCounters, "QP1Dropped", 160, 16, SelectMask::kCounterSelect2, 1, 1, kEvents,
      kQp1Dropped),
    F(kPortCounters, "VL15Dropped", 176, 16, SelectMask::kCounterSelect, 11, 1, kEvents, kNothing),
    F(kPortCounters, "PortXmitData", 192, 32, SelectMask::kCounterSelect, 12, 4, kBytes, kNothing),
    F(kPortCounters, "PortRcvData", 224, 32, SelectMask::kCounterSelect, 13, 4, kBytes, kNothing),
    F(kPortCounters, "PortXmitPkts", 256, 32, SelectMask::kCounterSelect, 14, 1, kPackets,
      kNothing),
    F(kPortCounters, "PortRcvPkts", 288, 32, SelectMask::kCounterSelect, 15, 1, kPackets, kNothing),
    F(kPortCounters, "PortXmitWait", 320, 32, SelectMask::kCounterSelect2, 0, 1, kTicks, kXmitWait),
    // PortCountersExtended
    F(kPortCountersExtended, "PortXmitData", 64, 64, SelectMask::kCounterSelect, 0, 4, kBytes,
      kExtendedWidth),
    F(kPortCountersExtended, "PortRcvData", 128, 64, SelectMask::kCounterSelect, 1, 4, kBytes,
      kExtendedWidth),
    F(kPortCountersExtended, "PortXmitPkts", 192, 64, SelectMask::kCounterSelect, 2, 1, kPackets,
      kExtendedWidth),
    F(kPortCountersExtended, "PortRcvPkts", 256, 64, SelectMask::kCounterSelect, 3, 1, kPackets,
      kExtendedWidth),
    F(kPortCountersExtended, "PortUnicastXmitPkts", 320, 64, SelectMask::kCounterSelect, 4, 1,
      kPackets, kExtendedWidthFull),
    F(kPortCountersExtended, "PortUnicastRcvPkts", 384, 64, SelectMask::kCounterSelect, 5, 1,
      kPackets, kExtendedWidthFull),
    F(kPortCountersExtended, "PortMulticastXmitPkts", 448, 64, SelectMask::kCounterSelect, 6, 1,
      kPackets, kExtendedWidthFull),
    F(kPortCountersExtended, "PortMulticastRcvPkts", 512, 64, SelectMask::kCounterSelect, 7, 1,
      kPackets, kExtendedWidthFull),
    F(kPortCountersExtended, "SymbolErrorCounter", 576, 64, SelectMask::kCounterSelect2, 0, 1,
      kEvents, kAdditionalExtended),
    F(kPortCountersExtended, "LinkErrorRecoveryCounter", 640, 64, SelectMask::kCounterSelect2, 1, 1,
      kEvents, kAdditionalExtended),
    F(kPortCountersExtended, "LinkDownedCounter", 704, 64, SelectMask::kCounterSelect2, 2, 1,
      kEvents, kAdditionalExtended),
    F(kPortCountersExtended, "PortRcvErrors", 768, 64, SelectMask::kCounterSelect2, 3, 1, kEvents,
      kAdditionalExtended),
    F(kPortCountersExtended, "PortRcvRemotePhysicalErrors", 832, 64, SelectMask::kCounterSelect2, 4,
      1, kEvents, kAdditionalExtended),
    F(kPortCountersExtended, "PortRcvSwitchRelayErrors", 896, 64, SelectMask::kCounterSelect2, 5, 1,
      kEvents, kAdditionalExtended),
    F(kPortCountersExtended, "PortXmitDiscards", 960, 64, SelectMask::kCounterSelect2, 6, 1,
      kEvents, kAdditionalExtended),
    F(kPortCountersExtended, "PortXmitConstraintErrors", 1024, 64, SelectMask::kCounterSelect2, 7,
      1, kEvents, kAdditionalExtended),
    F(kPortCountersExtended, "PortRcvConstraintErrors", 1088, 64, SelectMask::kCounterSelect2, 8, 1,
      kEvents, kAdditionalExtended),
    F(kPortCountersExtended, "LocalLinkIntegrityErrors", 1152, 64, SelectMask::kCounterSelect2, 9,
      1, kEvents, kAdditionalExtended),
    F(kPortCountersExtended, "ExcessiveBufferOverrunErrors", 1216, 64, SelectMask::kCounterSelect2,
      10, 1, kEvents, kAdditionalExtended),
    F(kPortCountersExtended, "VL15Dropped", 1280, 64, SelectMask::kCounterSelect2, 11, 1, kEvents,
      kAdditionalExtended),
    F(kPortCountersExtended, "PortXmitWait", 1344, 64, SelectMask::kCounterSelect2, 12, 1, kTicks,
      kAdditionalExtended),
    F(kPortCountersExtended, "QP1Dropped", 1408, 64, SelectMask::kCounterSelect2, 13, 1, kEvents,
      kAdditionalExtended),
    // PortRcvErrorDetails
    F(kPortRcvErrorDetails, "PortLocalPhysicalErrors", 32, 16, SelectMask::kCounterSelect, 0, 1,
      kEvents, kNothing),
    F(kPortRcvErrorDetails, "PortMalformedPktErrors", 48, 16, SelectMask::kCounterSelect, 1, 1,
      kEvents, kNothing),
    F(kPortRcvErrorDetails, "PortBufferOverrunErrors", 64, 16, SelectMask::kCounterSelect, 2, 1,
      kEvents, kNothing),
    F(kPortRcvErrorDetails, "PortDLIDMappingErrors", 80, 16, SelectMask::kCounterSelect, 3, 1,
      kEvents, kNothing),
    F(kPortRcvErrorDetails, "PortVLMappingErrors", 96, 16, SelectMask::kCounterSelect, 4, 1,
      kEvents, kNothing),
    F(kPortRcvErrorDetails, "PortLoopingErrors", 112, 16, SelectMask::kCounterSelect, 5, 1, kEvents,
      kNothing),
    // PortXmitDiscardDetails
    F(kPortXmitDiscardDetails, "PortInactiveDiscards", 32, 16, SelectMask::kCounterSelect, 0, 1,
      kEvents, kNothing),
    F(kPortXmitDiscardDetails, "PortNeighborMTUDiscards", 48, 16, SelectMask::kCounterSelect, 1, 1,
      kEvents, kNothing),
    F(kPortXmitDiscardDetails, "PortSwLifetimeLimitDiscards", 64, 16, SelectMask::kCounterSelect, 2,
      1, kEvents, kNothing),
    F(kPortXmitDiscardDetails, "PortSwHOQLifetimeLimitDiscards", 80, 16, SelectMask::kCounterSelect,
      3, 1, kEvents, kNothing),
    // PortOpRcvCounters
    F(kPortOpRcvCounters, "PortOpRcvPkts", 32, 32, SelectMask::kCounterSelect, 0, 1, kPackets,
      kNothing),
    F(kPortOpRcvCounters, "PortOpRcvData", 64, 32, SelectMask::kCounterSelect, 1, 4, kBytes,
      kNothing),
    // PortFlowCtlCounters
    F(kPortFlowCtlCounters, "PortXmitFlowPkts", 32, 32, SelectMask::kCounterSelect, 0, 1, kPackets,
      kNothing),
    F(kPortFlowCtlCounters, "PortRcvFlowPkts", 64, 32, SelectMask::kCounterSelect, 1, 1, kPackets,
      kNothing),
    // PortVLOpPackets
    F(kPortVLOpPackets, "PortVLOpPackets0", 32, 16, SelectMask::kCounterSelect, 0, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets1", 48, 16, SelectMask::kCounterSelect, 1, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets2", 64, 16, SelectMask::kCounterSelect, 2, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets3", 80, 16, SelectMask::kCounterSelect, 3, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets4", 96, 16, SelectMask::kCounterSelect, 4, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets5", 112, 16, SelectMask::kCounterSelect, 5, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets6", 128, 16, SelectMask::kCounterSelect, 6, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets7", 144, 16, SelectMask::kCounterSelect, 7, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets8", 160, 16, SelectMask::kCounterSelect, 8, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets9", 176, 16, SelectMask::kCounterSelect, 9, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets10", 192, 16, SelectMask::kCounterSelect, 10, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets11", 208, 16, SelectMask::kCounterSelect, 11, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets12", 224, 16, SelectMask::kCounterSelect, 12, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets13", 240, 16, SelectMask::kCounterSelect, 13, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets14", 256, 16, SelectMask::kCounterSelect, 14, 1, kPackets,
      kNothing),
    F(kPortVLOpPackets, "PortVLOpPackets15", 272, 16, SelectMask::kCounterSelect, 15, 1, kPackets,
      kNothing),
    // PortVLOpData
    F(kPortVLOpData, "PortVLOpData0", 32, 32, SelectMask::kCounterSelect, 0, 4, kBytes, kNothing),
    F(kPortVLOpData, "PortVLOpData1", 64, 32, SelectMask::kCounterSelect, 1, 4, kBytes, kNothing),
    F(kPortVLOpData, "PortVLOpData2", 96, 32, SelectMask::kCounterSelect, 2, 4, kBytes, kNothing),
    F(kPortVLOpData, "PortVLOpData3", 128, 32, SelectMask::kCounterSelect, 3, 4, kBytes, kNothing),
    F(kPortVLOpData, "PortVLOpData4", 160, 32, SelectMask::kCounterSelect, 4, 4, kBytes, kNothing),
    F(kPortVLOpData, "PortVLOpData5", 192, 32, SelectMask::kCounterSelect, 5, 4, kBytes, kNothing),
    F(kPortVLOpData, "PortVLOpData6", 224, 32, SelectMask::kCounterSelect, 6, 4, kBytes, kNothing),
    F(kPortVLOpData, "PortVLOpData7", 256, 32, SelectMask::kCounterSelect, 7, 4, kBytes, kNothing),
    F(kPortVLOpData, "PortVLOpData8", 288, 32, SelectMask::kCounterSelect, 8, 4, kBytes, kNothing),
    F(kPortVLOpData, "PortVLOpData9", 320, 32, SelectMask::kCounterSelect, 9, 4, kBytes, kNothing),
    F(kPortVLOpData, "PortVLOpData10", 352, 32, SelectMask::kCounterSelect, 10, 4, kBytes,
      kNothing),
    F(kPortVLOpData, "PortVLOpData11", 384, 32, SelectMask::kCounterSelect, 11, 4, kBytes,
      kNothing),
    F(kPortVLOpData, "PortVLOpData12", 416, 32, SelectMask::kCounterSelect, 12, 4, kBytes,
      kNothing),
    F(kPortVLOpData, "PortVLOpData13", 448, 32, SelectMask::kCounterSelect, 13, 4, kBytes,
      kNothing),
    F(kPortVLOpData, "PortVLOpData14", 480, 32, SelectMask::kCounterSelect, 14, 4, kBytes,
      kNothing),
    F(kPortVLOpData, "PortVLOpData15", 512, 32, SelectMask::kCounterSelect, 15, 4, kBytes,
      kNothing),
    // PortVLXmitFlowCtlUpdateErrors
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors0", 32, 2,
      SelectMask::kCounterSelect, 0, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors1", 34, 2,
      SelectMask::kCounterSelect, 1, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors2", 36, 2,
      SelectMask::kCounterSelect, 2, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors3", 38, 2,
      SelectMask::kCounterSelect, 3, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors4", 40, 2,
      SelectMask::kCounterSelect, 4, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors5", 42, 2,
      SelectMask::kCounterSelect, 5, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors6", 44, 2,
      SelectMask::kCounterSelect, 6, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors7", 46, 2,
      SelectMask::kCounterSelect, 7, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors8", 48, 2,
      SelectMask::kCounterSelect, 8, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors9", 50, 2,
      SelectMask::kCounterSelect, 9, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors10", 52, 2,
      SelectMask::kCounterSelect, 10, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors11", 54, 2,
      SelectMask::kCounterSelect, 11, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors12", 56, 2,
      SelectMask::kCounterSelect, 12, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors13", 58, 2,
      SelectMask::kCounterSelect, 13, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors14", 60, 2,
      SelectMask::kCounterSelect, 14, 1, kEvents, kNothing),
    F(kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors15", 62, 2,
      SelectMask::kCounterSelect, 15, 1, kEvents, kNothing),
    // PortVLXmitWaitCounters
    F(kPortVLXmitWaitCounters, "PortVLXmitWait0", 32, 16, SelectMask::kCounterSelect, 0, 1, kTicks,
      kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait1", 48, 16, SelectMask::kCounterSelect, 1, 1, kTicks,
      kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait2", 64, 16, SelectMask::kCounterSelect, 2, 1, kTicks,
      kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait3", 80, 16, SelectMask::kCounterSelect, 3, 1, kTicks,
      kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait4", 96, 16, SelectMask::kCounterSelect, 4, 1, kTicks,
      kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait5", 112, 16, SelectMask::kCounterSelect, 5, 1, kTicks,
      kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait6", 128, 16, SelectMask::kCounterSelect, 6, 1, kTicks,
      kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait7", 144, 16, SelectMask::kCounterSelect, 7, 1, kTicks,
      kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait8", 160, 16, SelectMask::kCounterSelect, 8, 1, kTicks,
      kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait9", 176, 16, SelectMask::kCounterSelect, 9, 1, kTicks,
      kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait10", 192, 16, SelectMask::kCounterSelect, 10, 1,
      kTicks, kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait11", 208, 16, SelectMask::kCounterSelect, 11, 1,
      kTicks, kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait12", 224, 16, SelectMask::kCounterSelect, 12, 1,
      kTicks, kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait13", 240, 16, SelectMask::kCounterSelect, 13, 1,
      kTicks, kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait14", 256, 16, SelectMask::kCounterSelect, 14, 1,
      kTicks, kNothing),
    F(kPortVLXmitWaitCounters, "PortVLXmitWait15", 272, 16, SelectMask::kCounterSelect, 15, 1,
      kTicks, kNothing),
    // PortExtendedSpeedsCounters
    F(kPortExtendedSpeedsCounters, "SyncHeaderErrorCounter", 128, 16, SelectMask::kCounterSelect, 0,
      1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "UnknownBlockCounter", 144, 16, SelectMask::kCounterSelect, 1, 1,
      kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane0", 160, 16,
      SelectMask::kCounterSelect, 2, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane1", 176, 16,
      SelectMask::kCounterSelect, 3, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane2", 192, 16,
      SelectMask::kCounterSelect, 4, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane3", 208, 16,
      SelectMask::kCounterSelect, 5, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane4", 224, 16,
      SelectMask::kCounterSelect, 6, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane5", 240, 16,
      SelectMask::kCounterSelect, 7, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane6", 256, 16,
      SelectMask::kCounterSelect, 8, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane7", 272, 16,
      SelectMask::kCounterSelect, 9, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane8", 288, 16,
      SelectMask::kCounterSelect, 10, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane9", 304, 16,
      SelectMask::kCounterSelect, 11, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane10", 320, 16,
      SelectMask::kCounterSelect, 12, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane11", 336, 16,
      SelectMask::kCounterSelect, 13, 1, kEvents, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane0", 352, 32,
      SelectMask::kCounterSelect, 14, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane1", 384, 32,
      SelectMask::kCounterSelect, 15, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane2", 416, 32,
      SelectMask::kCounterSelect, 16, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane3", 448, 32,
      SelectMask::kCounterSelect, 17, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane4", 480, 32,
      SelectMask::kCounterSelect, 18, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane5", 512, 32,
      SelectMask::kCounterSelect, 19, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane6", 544, 32,
      SelectMask::kCounterSelect, 20, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane7", 576, 32,
      SelectMask::kCounterSelect, 21, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane8", 608, 32,
      SelectMask::kCounterSelect, 22, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane9", 640, 32,
      SelectMask::kCounterSelect, 23, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane10", 672, 32,
      SelectMask::kCounterSelect, 24, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECCorrectableBlockCtrLane11", 704, 32,
      SelectMask::kCounterSelect, 25, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane0", 736, 32,
      SelectMask::kCounterSelect, 26, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane1", 768, 32,
      SelectMask::kCounterSelect, 27, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane2", 800, 32,
      SelectMask::kCounterSelect, 28, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane3", 832, 32,
      SelectMask::kCounterSelect, 29, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane4", 864, 32,
      SelectMask::kCounterSelect, 30, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane5", 896, 32,
      SelectMask::kCounterSelect, 31, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane6", 928, 32,
      SelectMask::kCounterSelect, 32, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane7", 960, 32,
      SelectMask::kCounterSelect, 33, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane8", 992, 32,
      SelectMask::kCounterSelect, 34, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane9", 1024, 32,
      SelectMask::kCounterSelect, 35, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane10", 1056, 32,
      SelectMask::kCounterSelect, 36, 1, kBlocks, kNothing),
    F(kPortExtendedSpeedsCounters, "FECUncorrectableBlockCtrLane11", 1088, 32,
      SelectMask::kCounterSelect, 37, 1, kBlocks, kNothing),
    // PortExtendedSpeedsCounters with RS-FEC active: bytes 20-43 (the older layout's
    // per-lane error detection) are reserved, bytes 44-91 hold per-lane corrected symbols
    // where the older layout has corrected blocks, bytes 92-139 are reserved, and the port
    // totals follow at 140-151 (past the older layout's fields, where it reads 0).
    R("SyncHeaderErrorCounter", 128, 16, kEvents),
    R("UnknownBlockCounter", 144, 16, kEvents),
    R("FECCorrectableSymbolCtrLane0", 352, 32, kSymbols),
    R("FECCorrectableSymbolCtrLane1", 384, 32, kSymbols),
    R("FECCorrectableSymbolCtrLane2", 416, 32, kSymbols),
    R("FECCorrectableSymbolCtrLane3", 448, 32, kSymbols),
    R("FECCorrectableSymbolCtrLane4", 480, 32, kSymbols),
    R("FECCorrectableSymbolCtrLane5", 512, 32, kSymbols),
    R("FECCorrectableSymbolCtrLane6", 544, 32, kSymbols),
    R("FECCorrectableSymbolCtrLane7", 576, 32, kSymbols),
    R("FECCorrectableSymbolCtrLane8", 608, 32, kSymbols),
    R("FECCorrectableSymbolCtrLane9", 640, 32, kSymbols),
    R("FECCorrectableSymbolCtrLane10", 672, 32, kSymbols),
    R("FECCorrectableSymbolCtrLane11", 704, 32, kSymbols),
    R("PortFECCorrectableBlockCtr", 1120, 32, kBlocks),
    R("PortFECUncorrectableBlockCtr", 1152, 32, kBlocks),
    R("PortFECCorrectedSymbolCtr", 1184, 32, kSymbols),
};

constexpr bool same_group(const Field& a, const Field& b) {
  return a.attribute == b.attribute && a.layout == b.layout;
}
constexpr bool grouped_by_attribute_and_layout() {
  for (size_t i = 1; i < kFields.size(); ++i) {
    for (size_t j = 0; j + 1 < i; ++j) {
      if (same_group(kFields[j], kFields[i]) && !same_group(kFields[i - 1], kFields[i])) {
        return false;
      }
    }
  }
  return true;
}
static_assert(grouped_by_attribute_and_layout(), "fields_of() needs each layout's fields together");

constexpr size_t largest_group() {
  size_t largest = 0;
  size_t run = 0;
  for (size_t i = 0; i < kFields.size(); ++i) {
    run = i > 0 && same_group(kFields[i - 1], kFields[i]) ? run + 1 : 1;
    largest = run > largest ? run : largest;
  }
  return largest;
}
static_assert(largest_group() == kMaxFieldsPerAttribute,
              "kMaxFieldsPerAttribute is the largest attribute layout's field count");

}  // namespace

std::span<const Field> all_fields() {
  return kFields;
}

}  // namespace ibpulse::schema
